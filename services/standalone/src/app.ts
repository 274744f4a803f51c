import { createGatewayApp } from '@timetable/gateway';
import { listen, type RunningServer, type ServiceModule } from '@timetable/http';
import { InProcessBus } from '@timetable/events';
import { createLogger, type Logger } from '@timetable/observability';
import type { StandaloneConfig } from './config.js';
import { openDatabase } from './database.js';
import { createEmbeddedContext, type EmbeddedContext } from './embedded-context.js';
import { buildServices } from './services.js';

export interface RunningSystem {
  url: string;
  port: number;
  context: EmbeddedContext;
  /** Resolves once the first sync run ended and its events reached every service (the in-process bus is synchronous). */
  firstSyncPublished(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Composition root of the embedded mode: one process, one PostgreSQL (a schema per service), the
 * in-process bus, and the gateway in front of every service's routes.
 */
export async function startEmbeddedSystem(
  config: StandaloneConfig,
  logger: Logger = createLogger({ name: 'timetable', level: config.LOG_LEVEL }),
): Promise<RunningSystem> {
  const database = await openDatabase(config, logger);
  const bus = new InProcessBus(logger.child({ component: 'bus' }));
  const context = createEmbeddedContext(config, logger, bus, database.connectionString);
  const modules: ServiceModule[] = [];
  let server: RunningServer | undefined;
  const stop = async () => {
    await server?.close();
    for (const module of [...modules].reverse()) {
      await module.stop().catch((error: unknown) => logger.error({ err: error, module: module.name }, 'stop failed'));
    }
    await bus.disconnect();
    await context.close();
    await database.stop();
    logger.info('timetable service stopped');
  };
  try {
    await bus.connect();
    const services = await buildServices(context);
    modules.push(...services.modules);
    const gateway = createGatewayApp({
      logger: logger.child({ service: 'gateway' }),
      upstreams: modules.map((module) => module.routes),
      readiness: modules.flatMap((module) => module.readiness),
      keyVerifier: services.keyVerifier,
      identity: context.identity,
      rateLimiter: context.rateLimiter,
      rateTiers: config.RATE_LIMITS,
      bus,
      publicBaseUrl: config.publicBaseUrl,
      legacyHosts: config.LEGACY_HOSTS,
      trustProxy: config.TRUST_PROXY,
    });
    for (const module of modules) await module.start();
    server = await listen(gateway, config.PORT);
    logger.info({ url: server.url, publicBaseUrl: config.publicBaseUrl }, 'timetable service ready');
    return { url: server.url, port: server.port, context, firstSyncPublished: services.firstSyncPublished, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
