import type { ServiceModule } from '@timetable/http';
import type { Logger } from '@timetable/observability';
import { drainOnSignal, type ProcessExit } from './drain-on-signal.js';
import { isAppModule, type AppModule } from './define-service.js';
import { serveApp, serveModule } from './serve-module.js';
import { ShutdownStack } from './shutdown-stack.js';

export interface ServiceProcessContext extends ProcessExit {
  /**
   * Registers something `open` acquired (bus, pool, a Redis connection); released after the module stopped,
   * the last registered first, and also when the start fails half-way.
   */
  onClose(what: string, release: () => Promise<unknown>): void;
}

export interface ServiceProcessOptions {
  name: string;
  port: number;
  logger: Logger;
  /** Connects the service's backends and builds its module; `fail` ends the process non-zero after a drain. */
  open(context: ServiceProcessContext): Promise<ServiceModule | AppModule>;
}

/**
 * The main loop of one service process in distributed mode: open, serve the module on every interface, and
 * on SIGINT/SIGTERM drain (stop accepting requests and stop the module together, then release what `open`
 * acquired) and exit 0.
 */
export function runServiceProcess(options: ServiceProcessOptions): void {
  const { name, logger } = options;
  const shutdown = new ShutdownStack(logger);
  // Bound right after the start begins; a consumer can only fail once `open` has connected it.
  const exit: { current?: ProcessExit } = {};
  const starting = (async () => {
    const module = await options.open({
      fail: (error) => exit.current?.fail(error),
      onClose: (what, release) => shutdown.push(what, release),
    });
    const serveOptions = { name, logger, port: options.port, host: '0.0.0.0' };
    const served = isAppModule(module) ? await serveApp(module, serveOptions) : await serveModule(module, serveOptions);
    shutdown.push(`${name} (http server and module)`, () => served.close());
    logger.info({ url: served.url }, `${name} ready`);
    return { stop: () => shutdown.close() };
  })();
  exit.current = drainOnSignal({ name, logger, starting, cleanUpFailedStart: () => shutdown.close() });
}
