import { ALL_TOPICS } from '@timetable/contracts';
import type { Knex, MigrationSet } from '@timetable/db';
import { KafkaBus, type EventBus } from '@timetable/events';
import type { Logger } from '@timetable/observability';
import { openServiceStore } from './service-store.js';

export interface DistributedBackendSettings {
  /** The service's own database (DATABASE_URL). */
  databaseUrl: string;
  schema: string;
  migrations: MigrationSet;
  /** Store connections kept open through idle periods, opened at start. */
  connectionsKept?: number | undefined;
  kafkaBrokers: string[];
  schemaRegistryUrl?: string | undefined;
  topicPrefix?: string | undefined;
  /** Kafka client id; the service name. */
  clientId: string;
  /** CONSUMER_RETRY_BUDGET_SECONDS, in milliseconds. */
  consumerRetryBudgetMs: number;
  /** The process's way to end non-zero after draining, for a consumer that gave up. */
  onConsumerFailure(error: unknown): void;
  logger: Logger;
}

export interface DistributedBackends {
  /** On the service's schema, migrated to latest. */
  knex: Knex;
  /** Connected; topics exist and their schemas are registered. */
  bus: EventBus;
  /** Disconnects the bus, then closes the pool: the last step of a drain. */
  close(): Promise<void>;
}

/**
 * What every service process of the distributed mode opens before building its module: its own store,
 * migrated, and the Kafka bus. Either both are open or, when one fails, neither is.
 */
export async function openDistributedBackends(settings: DistributedBackendSettings): Promise<DistributedBackends> {
  const knex = await openServiceStore({
    connectionString: settings.databaseUrl,
    schema: settings.schema,
    migrations: settings.migrations,
    ...(settings.connectionsKept === undefined ? {} : { connectionsKept: settings.connectionsKept }),
    logger: settings.logger,
  });
  const bus = new KafkaBus({
    brokers: settings.kafkaBrokers,
    clientId: settings.clientId,
    schemaRegistryUrl: settings.schemaRegistryUrl,
    topicPrefix: settings.topicPrefix,
    topics: ALL_TOPICS,
    consumerRetryBudgetMs: settings.consumerRetryBudgetMs,
    onConsumerFailure: settings.onConsumerFailure,
    logger: settings.logger.child({ component: 'bus' }),
  });
  try {
    await bus.connect();
  } catch (error) {
    await bus.disconnect().catch(() => undefined);
    await knex.destroy();
    throw error;
  }
  return {
    knex,
    bus,
    async close() {
      await bus.disconnect();
      await knex.destroy();
    },
  };
}
