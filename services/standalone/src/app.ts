import { createGatewayApp } from '@timetable/gateway';
import { listen, type RunningServer, type ServiceModule } from '@timetable/http';
import { InProcessBus } from '@timetable/events';
import { createLogger, type Logger } from '@timetable/observability';
import type { StandaloneConfig } from './config.js';
import { openDatabase, type Database } from './database.js';

export interface RunningSystem {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * Composition root of the embedded mode: one process, one PostgreSQL (a schema per service), the
 * in-process bus, and the gateway in front of every service's routes.
 */
export async function startEmbeddedSystem(config: StandaloneConfig, logger: Logger = createLogger({ name: 'timetable', level: config.LOG_LEVEL })): Promise<RunningSystem> {
  const database = await openDatabase(config, logger);
  const bus = new InProcessBus(logger.child({ component: 'bus' }));
  const modules: ServiceModule[] = [];
  let server: RunningServer | undefined;
  try {
    const gateway = createGatewayApp({
      logger: logger.child({ service: 'gateway' }),
      upstreams: modules.map((module) => module.routes),
      readiness: modules.flatMap((module) => module.readiness),
    });
    await bus.connect();
    for (const module of modules) await module.start();
    server = await listen(gateway, config.PORT);
    logger.info({ url: server.url, publicBaseUrl: config.publicBaseUrl }, 'timetable service ready');
  } catch (error) {
    await shutdown(modules, database, bus, server, logger);
    throw error;
  }
  const running = server;
  return {
    url: running.url,
    port: running.port,
    stop: () => shutdown(modules, database, bus, running, logger),
  };
}

async function shutdown(
  modules: ServiceModule[],
  database: Database,
  bus: InProcessBus,
  server: RunningServer | undefined,
  logger: Logger,
): Promise<void> {
  await server?.close();
  for (const module of [...modules].reverse()) {
    await module.stop().catch((error: unknown) => logger.error({ err: error, module: module.name }, 'stop failed'));
  }
  await bus.disconnect();
  await database.stop();
  logger.info('timetable service stopped');
}
