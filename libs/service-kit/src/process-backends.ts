import { ALL_TOPICS } from '@timetable/contracts';
import type { Knex } from '@timetable/db';
import { InProcessBus, KafkaBus, type EventBus } from '@timetable/events';
import type { Logger } from '@timetable/observability';
import type { ServiceStore } from './define-service.js';
import { openDistributedBackends } from './distributed-backends.js';
import type { ServiceProcessContext } from './run-service-process.js';

/** What a process host reads of any definition's config: its port and log level, its store's database, Kafka. */
export interface ProcessHostConfig {
  PORT: number;
  LOG_LEVEL: string;
  DATABASE_URL?: string | undefined;
  KAFKA_BROKERS?: string[] | undefined;
  SCHEMA_REGISTRY_URL?: string | undefined;
  KAFKA_TOPIC_PREFIX?: string | undefined;
  CONSUMER_RETRY_BUDGET_SECONDS?: number | undefined;
}

export interface ProcessBackendsOptions extends ServiceProcessContext {
  name: string;
  store: ServiceStore | undefined;
  config: ProcessHostConfig;
  logger: Logger;
}

/**
 * The store (migrated) and the bus (connected) of a service in a process of its own, both released by the
 * process's shutdown stack. A store-owning service needs both, and its config requires them. A store-less one
 * (the gateway) only produces: to Kafka when KAFKA_BROKERS is set, else its events stay in the process.
 */
export async function openProcessBackends(options: ProcessBackendsOptions): Promise<{ knex: Knex | undefined; bus: EventBus }> {
  const { name, store, config, logger } = options;
  if (store) {
    const { DATABASE_URL, KAFKA_BROKERS, CONSUMER_RETRY_BUDGET_SECONDS } = config;
    if (!DATABASE_URL || !KAFKA_BROKERS || CONSUMER_RETRY_BUDGET_SECONDS === undefined) {
      throw new Error(`${name} owns a store: its config must hold serviceProcessFields (DATABASE_URL, KAFKA_BROKERS, ...)`);
    }
    const backends = await openDistributedBackends({
      databaseUrl: DATABASE_URL,
      schema: store.schema,
      migrations: store.migrations,
      connectionsKept: store.connectionsKept,
      kafkaBrokers: KAFKA_BROKERS,
      schemaRegistryUrl: config.SCHEMA_REGISTRY_URL,
      topicPrefix: config.KAFKA_TOPIC_PREFIX,
      clientId: name,
      consumerRetryBudgetMs: CONSUMER_RETRY_BUDGET_SECONDS * 1000,
      onConsumerFailure: options.fail,
      logger,
    });
    options.onClose('store and bus', () => backends.close());
    return { knex: backends.knex, bus: backends.bus };
  }
  const bus: EventBus = config.KAFKA_BROKERS
    ? new KafkaBus({
        brokers: config.KAFKA_BROKERS,
        clientId: name,
        schemaRegistryUrl: config.SCHEMA_REGISTRY_URL,
        topicPrefix: config.KAFKA_TOPIC_PREFIX,
        topics: ALL_TOPICS,
        logger,
      })
    : new InProcessBus(logger);
  if (!config.KAFKA_BROKERS) logger.warn('KAFKA_BROKERS unset: the events it produces stay in this process');
  options.onClose('bus', () => bus.disconnect());
  await bus.connect();
  return { knex: undefined, bus };
}
