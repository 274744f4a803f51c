import type { Logger } from '@timetable/observability';
import { createServiceApp } from './create-service-app.js';
import { drainOnSignal, type ProcessExit } from './drain-on-signal.js';
import { listen, type RunningServer } from './http-server.js';
import type { ServiceModule } from './service-module.js';

export interface OpenedService {
  module: ServiceModule;
  /** Releases what `open` acquired (bus, pools); called after the module stopped. */
  close(): Promise<void>;
}

export interface ServiceProcessOptions {
  name: string;
  port: number;
  logger: Logger;
  /** Connects the service's backends and builds its module; `fail` ends the process non-zero after a drain. */
  open(exit: ProcessExit): Promise<OpenedService>;
}

/**
 * The main loop of one service process in distributed mode: open, serve the module's public routes under
 * /v1/timetable and its internal routes beside them, start its consumers and jobs, and on SIGINT/SIGTERM
 * drain (stop accepting requests and stop the module together, then close the backends) and exit 0.
 */
export function runServiceProcess(options: ServiceProcessOptions): void {
  const { logger } = options;
  let opened: OpenedService | undefined;
  let server: RunningServer | undefined;

  // The HTTP server and the module drain together: background work (a delivery cycle, a consumer) must stop
  // taking new work at the signal, not only once the last HTTP request has been answered.
  const stop = async () => {
    await Promise.all([
      server?.close(),
      opened?.module.stop().catch((error: unknown) => logger.error({ err: error }, 'module stop failed')),
    ]);
    await opened?.close();
  };

  // Bound right after the start begins; a consumer can only fail once `open` has connected it.
  const exit: { current?: ProcessExit } = {};
  const starting = (async () => {
    opened = await options.open({ fail: (error) => exit.current?.fail(error) });
    const { module } = opened;
    const app = createServiceApp({
      name: options.name,
      logger,
      routes: module.routes,
      readiness: module.readiness,
      configure: (express) => {
        if (module.internalRoutes) express.use(module.internalRoutes);
      },
    });
    await module.start();
    server = await listen(app, options.port);
    logger.info({ url: server.url }, `${options.name} ready`);
    return { stop };
  })();

  exit.current = drainOnSignal({ name: options.name, logger, starting, cleanUpFailedStart: stop });
}
