import type { Server } from 'node:http';
import { createServiceApp, listen, type RunningServer, type ServiceModule } from '@timetable/http';
import type { Logger } from '@timetable/observability';
import type { AppModule } from './define-service.js';

export interface ServeModuleOptions {
  /** The app's name in request logs and metric labels. */
  name: string;
  logger: Logger;
  /** Default 0: any free port, as tests and benches want. */
  port?: number;
  /** Default 127.0.0.1, so tests and benches stay off the network; a service process passes 0.0.0.0. */
  host?: string;
  /**
   * Default true. False serves the routes of a module its caller starts and stops itself: a test that runs
   * a sync by hand instead of on its schedule, or starts a consumer only once its webhooks exist. `close`
   * then leaves the module alone.
   */
  startModule?: boolean;
}

export interface ServedModule {
  url: string;
  port: number;
  server: Server;
  /** Stops accepting requests and stops the module, together; rejects with whichever failed. */
  close(): Promise<void>;
}

/**
 * One module behind its own HTTP server, as a service process runs it and as its tests do: its public routes
 * under /v1/timetable, its internal routes beside them, /health, /ready with the module's checks, /metrics.
 * The module starts before the port opens, so the first request finds its jobs and consumers running. A
 * start or listen that fails stops the module again before rejecting.
 */
export async function serveModule(module: ServiceModule, options: ServeModuleOptions): Promise<ServedModule> {
  const ownsModule = options.startModule ?? true;
  const app = createServiceApp({
    name: options.name,
    logger: options.logger,
    routes: module.routes,
    readiness: module.readiness,
    configure: (express) => {
      if (module.internalRoutes) express.use(module.internalRoutes);
    },
  });
  let running: RunningServer;
  try {
    if (ownsModule) await module.start();
    running = await listen(app, options.port ?? 0, options.host ?? '127.0.0.1');
  } catch (error) {
    if (ownsModule) {
      await module.stop().catch((stopError: unknown) => options.logger.error({ err: stopError }, `${module.name} did not stop after a failed start`));
    }
    throw error;
  }
  return served(running, () => (ownsModule ? module.stop() : Promise.resolve()));
}

/**
 * A module with an HTTP app of its own (the gateway), served as it is: started before the port opens, and on
 * close it stops accepting requests and stops, together.
 */
export async function serveApp(module: AppModule, options: ServeModuleOptions): Promise<ServedModule> {
  await module.start();
  const running = await listen(module.listener, options.port ?? 0, options.host ?? '127.0.0.1').catch(async (error: unknown) => {
    await module.stop().catch((stopError: unknown) => options.logger.error({ err: stopError }, `${module.name} did not stop after a failed start`));
    throw error;
  });
  return served(running, () => module.stop());
}

/**
 * The served module: closing stops accepting requests and stops the module together, not one after the other:
 * background work (a delivery cycle, a consumer) must stop taking new work at once, not only once the last HTTP
 * request has been answered.
 */
function served(running: RunningServer, stop: () => Promise<void>): ServedModule {
  return {
    url: running.url,
    port: running.port,
    server: running.server,
    async close() {
      const results = await Promise.allSettled([running.close(), stop()]);
      for (const result of results) if (result.status === 'rejected') throw result.reason;
    },
  };
}
