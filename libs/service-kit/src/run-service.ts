import { loadConfigOrExit, type ServiceProcessConfig } from '@timetable/config';
import type { Knex, MigrationSet } from '@timetable/db';
import type { EventBus } from '@timetable/events';
import type { ServiceModule } from '@timetable/http';
import { createLogger, type Logger } from '@timetable/observability';
import { openDistributedBackends } from './distributed-backends.js';
import { drainOnSignal, type Stoppable } from './drain-on-signal.js';
import { runServiceProcess } from './run-service-process.js';

export interface ServiceBuildContext<C> {
  config: C;
  logger: Logger;
  /** On the service's schema, migrated to latest. */
  knex: Knex;
  /** The Kafka bus, connected. */
  bus: EventBus;
  /** Registers something the module uses beyond store and bus; released after the module stopped, before them. */
  onClose(what: string, release: () => Promise<unknown>): void;
}

export interface RunServiceOptions<C extends ServiceProcessConfig> {
  /** Logger name, Kafka client id, metric label. */
  name: string;
  /** The service's config loader; an invalid variable ends the process with code 2 and the variable's name. */
  loadConfig: () => C;
  /**
   * The service's own schema and its migrations, run before `build`; for a service whose work comes minutes
   * apart, the connections its store keeps open (opened at start) so that work does not open them each time.
   */
  store: { schema: string; migrations: MigrationSet; connectionsKept?: number };
  build(context: ServiceBuildContext<C>): Promise<ServiceModule>;
}

/**
 * The whole `main.ts` of a distributed service that owns a store: read and check its config, log as `name`,
 * open and migrate its store, connect the Kafka bus, build the module, serve it on PORT, and drain on
 * SIGINT/SIGTERM or when a consumer gives up.
 */
export function runService<C extends ServiceProcessConfig>(options: RunServiceOptions<C>): void {
  const { name } = options;
  const { config, logger } = startProcess(name, options.loadConfig);
  runServiceProcess({
    name,
    port: config.PORT,
    logger,
    async open({ fail, onClose }) {
      const backends = await openDistributedBackends({
        databaseUrl: config.DATABASE_URL,
        schema: options.store.schema,
        migrations: options.store.migrations,
        connectionsKept: options.store.connectionsKept,
        kafkaBrokers: config.KAFKA_BROKERS,
        schemaRegistryUrl: config.SCHEMA_REGISTRY_URL,
        topicPrefix: config.KAFKA_TOPIC_PREFIX,
        clientId: name,
        consumerRetryBudgetMs: config.CONSUMER_RETRY_BUDGET_SECONDS * 1000,
        onConsumerFailure: fail,
        logger,
      });
      onClose('store and bus', () => backends.close());
      return options.build({ config, logger, knex: backends.knex, bus: backends.bus, onClose });
    },
  });
}

export interface RunProcessOptions<C extends { LOG_LEVEL: string }> {
  name: string;
  loadConfig: () => C;
  /** Starts the process's work; a start that fails has released what it had acquired. */
  start(context: { config: C; logger: Logger }): Promise<Stoppable>;
}

/**
 * The `main.ts` of a process that is not one store-owning service (the gateway, the embedded mode): config,
 * logger, and the drain on SIGINT/SIGTERM around whatever `start` starts.
 */
export function runProcess<C extends { LOG_LEVEL: string }>(options: RunProcessOptions<C>): void {
  const { config, logger } = startProcess(options.name, options.loadConfig);
  // The signal handlers go in before the start begins, so no signal meets Node's default of dying mid-start.
  const starting = Promise.resolve().then(() => options.start({ config, logger }));
  drainOnSignal({ name: options.name, logger, starting });
}

function startProcess<C extends { LOG_LEVEL: string }>(name: string, loadConfig: () => C): { config: C; logger: Logger } {
  const config = loadConfigOrExit(loadConfig);
  return { config, logger: createLogger({ name, level: config.LOG_LEVEL }) };
}
