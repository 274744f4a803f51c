import { loadConfigOrExit, type ServiceProcessConfig } from '@timetable/config';
import type { ServiceModule } from '@timetable/http';
import { createLogger, type Logger } from '@timetable/observability';
import type { ServiceDefinition } from './define-service.js';
import { openDistributedBackends } from './distributed-backends.js';
import { drainOnSignal, type Stoppable } from './drain-on-signal.js';
import { runServiceProcess } from './run-service-process.js';

/**
 * The whole `main.ts` of a distributed service that owns a store: read and check its config, log as its
 * name, open and migrate its store, connect the Kafka bus, make its overrides from its config, build the
 * module, serve it on PORT, and drain on SIGINT/SIGTERM or when a consumer gives up.
 */
export function runService<S, C extends S & ServiceProcessConfig, O, M extends ServiceModule>(definition: ServiceDefinition<S, C, O, M>): void {
  const { name, store } = definition;
  if (!store) throw new Error(`${name} declares no store: runService runs a store-owning service`);
  const { config, logger } = startProcess(name, definition.loadConfig);
  runServiceProcess({
    name,
    port: config.PORT,
    logger,
    async open({ fail, onClose }) {
      const backends = await openDistributedBackends({
        databaseUrl: config.DATABASE_URL,
        schema: store.schema,
        migrations: store.migrations,
        connectionsKept: store.connectionsKept,
        kafkaBrokers: config.KAFKA_BROKERS,
        schemaRegistryUrl: config.SCHEMA_REGISTRY_URL,
        topicPrefix: config.KAFKA_TOPIC_PREFIX,
        clientId: name,
        consumerRetryBudgetMs: config.CONSUMER_RETRY_BUDGET_SECONDS * 1000,
        onConsumerFailure: fail,
        logger,
      });
      onClose('store and bus', () => backends.close());
      const platform = { logger, bus: backends.bus, onClose };
      const overrides = await definition.processOverrides(config, platform);
      return definition.build({ ...platform, config, knex: backends.knex, overrides });
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
