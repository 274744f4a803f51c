import { ResponseStore } from '@timetable/cache';
import { gatewayService } from '@timetable/gateway';
import { listen } from '@timetable/http';
import { DeadLetterTable, InProcessBus } from '@timetable/events';
import { createLogger, type Logger } from '@timetable/observability';
import { buildContext, openServiceStore, ShutdownStack } from '@timetable/service-kit';
import { SYNC_SCHEMA, syncMigrations } from '@timetable/sync';
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
 * in-process bus, and the gateway in front of every service's routes. It stops in the reverse order of its
 * start: the HTTP server, the modules (last started first), the bus, the stores, PostgreSQL.
 */
export async function startEmbeddedSystem(
  config: StandaloneConfig,
  logger: Logger = createLogger({ name: 'timetable', level: config.LOG_LEVEL }),
): Promise<RunningSystem> {
  const shutdown = new ShutdownStack(logger);
  try {
    const database = await openDatabase(config, logger);
    shutdown.push('embedded PostgreSQL', () => database.stop());
    // A record a consumer cannot apply is put aside in the outbox's store, so the relay moves past it.
    const outboxStore = await openServiceStore({ connectionString: database.connectionString, schema: SYNC_SCHEMA, migrations: syncMigrations, logger, poolMax: 1 });
    shutdown.push('dead-letter store', () => outboxStore.destroy());
    const bus = new InProcessBus(logger.child({ component: 'bus' }), { deadLetters: new DeadLetterTable(outboxStore) });
    const onClose = (what: string, release: () => Promise<unknown>) => shutdown.push(what, release);
    const context = createEmbeddedContext({ config, logger, bus, onClose, connectionString: database.connectionString });
    shutdown.push('service stores', () => context.close());
    shutdown.push('bus', () => bus.disconnect());
    await bus.connect();
    const services = await buildServices(context);
    // The gateway from its definition, in front of the modules' routers in-process.
    const gateway = await gatewayService.build(
      buildContext(gatewayService.name, {
        logger: logger.child({ service: 'gateway' }),
        bus,
        onClose,
        config,
        knex: undefined,
        overrides: {
          upstreams: services.modules.map((module) => module.routes),
          readiness: services.modules.flatMap((module) => module.readiness),
          keyVerifier: services.keyVerifier,
          identity: context.identity,
          rateLimiter: context.rateLimiter,
          responses: new ResponseStore(context.cache),
        },
      }),
    );
    await shutdown.startModules(services.modules);
    const server = await listen(gateway.listener, config.PORT);
    shutdown.push('http server', () => server.close());
    logger.info({ url: server.url, publicBaseUrl: config.publicBaseUrl }, 'timetable service ready');
    return {
      url: server.url,
      port: server.port,
      context,
      firstSyncPublished: services.firstSyncPublished,
      async stop() {
        await shutdown.close();
        logger.info('timetable service stopped');
      },
    };
  } catch (error) {
    // What failed to stop is logged by the stack; the start's own error is the one worth rethrowing.
    await shutdown.close().catch(() => undefined);
    throw error;
  }
}
