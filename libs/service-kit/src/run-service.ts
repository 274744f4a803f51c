import { loadConfigOrExit } from '@timetable/config';
import type { ServiceModule } from '@timetable/http';
import { createLogger, type Logger } from '@timetable/observability';
import { buildContext, type AppModule, type ServiceDefinition } from './define-service.js';
import { openProcessBackends, type ProcessHostConfig } from './process-backends.js';
import { drainOnSignal, type Stoppable } from './drain-on-signal.js';
import { runServiceProcess } from './run-service-process.js';

/**
 * The whole `main.ts` of a distributed service: read and check its config, log as its name, open and migrate
 * its store (if it has one), connect the bus, make its overrides from its config, build the module, serve it
 * on PORT, and drain on SIGINT/SIGTERM or when a consumer gives up; what it acquired is released in reverse.
 */
export function runService<S, C extends S & ProcessHostConfig, O, M extends ServiceModule | AppModule>(definition: ServiceDefinition<S, C, O, M>): void {
  const { name, store } = definition;
  const { config, logger } = startProcess(name, definition.loadConfig);
  runServiceProcess({
    name,
    port: config.PORT,
    logger,
    async open({ fail, onClose }) {
      const { knex, bus } = await openProcessBackends({ name, store, config, logger, fail, onClose });
      const platform = { logger, bus, onClose };
      const overrides = await definition.processOverrides(config, platform);
      return definition.build(buildContext(name, { ...platform, config, knex, overrides }));
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
