import { CATALOG_SCHEMA, catalogMigrations, createCatalogService } from '@timetable/catalog-api';
import { CHANGES_SCHEMA, changesMigrations, createChangesService } from '@timetable/changes';
import type { KeyVerifier } from '@timetable/contracts';
import { createDeveloperAuthService, DEVELOPER_AUTH_SCHEMA, developerAuthMigrations } from '@timetable/developer-auth';
import type { ServiceModule } from '@timetable/http';
import { startSimulator } from '@timetable/starplan-sim';
import { createSyncService, SYNC_SCHEMA, syncMigrations } from '@timetable/sync';
import { createWebhookService, webhookMigrations, webhookSettingsFrom, WEBHOOKS_SCHEMA } from '@timetable/webhook-dispatcher';
import type { EmbeddedContext } from './embedded-context.js';

export interface EmbeddedServices {
  modules: ServiceModule[];
  /** developer-auth's key check for the gateway; without it key routes answer 503. */
  keyVerifier?: KeyVerifier;
}

/**
 * Builds every service of the embedded mode. Order matters at start: consumers are listed before the
 * producers whose events they must not miss (the in-process bus delivers only to running subscribers).
 */
export async function buildServices(context: EmbeddedContext): Promise<EmbeddedServices> {
  const modules: ServiceModule[] = [];
  // Catalog before sync: it projects the entity states sync publishes.
  modules.push(
    await createCatalogService({
      knex: await context.openStore(CATALOG_SCHEMA, catalogMigrations),
      bus: context.bus,
      cache: context.cache,
      logger: context.logger.child({ service: 'catalog-api' }),
      timeZone: context.config.TIME_ZONE,
      icalDomain: context.config.icalDomain,
    }),
  );
  // Change log: a consumer of timetable.changes.v1, so before sync.
  modules.push(
    await createChangesService({ knex: await context.openStore(CHANGES_SCHEMA, changesMigrations), bus: context.bus, logger: context.logger }),
  );
  // Webhooks: a consumer of timetable.changes.v1 (so before sync); developer-auth counts its webhooks.
  const webhooks = await createWebhookService({
    knex: await context.openStore(WEBHOOKS_SCHEMA, webhookMigrations),
    bus: context.bus,
    logger: context.logger.child({ service: 'webhook-dispatcher' }),
    identity: context.identity,
    ...webhookSettingsFrom(context.config),
  });
  modules.push(webhooks);
  // Developer accounts: consumes timetable.usage.v1 and verifies keys for the gateway.
  const developerAuth = await createDeveloperAuthService({
    knex: await context.openStore(DEVELOPER_AUTH_SCHEMA, developerAuthMigrations),
    bus: context.bus,
    logger: context.logger,
    identity: context.identity,
    webhookCounter: webhooks.webhookCounter,
  });
  modules.push(developerAuth);
  // Sync last: it produces what every module above consumes. Without an upstream, the built-in simulator.
  modules.push(await buildSync(context));
  return { modules, keyVerifier: developerAuth.keyVerifier };
}

async function buildSync(context: EmbeddedContext): Promise<ServiceModule> {
  const { config } = context;
  const simulator = config.UPSTREAM_BASE_URL ? undefined : await startSimulator({ port: 0 });
  const sync = await createSyncService({
    knex: await context.openStore(SYNC_SCHEMA, syncMigrations),
    bus: context.bus,
    logger: context.logger,
    upstreamBaseUrl: config.UPSTREAM_BASE_URL ?? simulator?.url ?? '',
    planningUnit: config.UPSTREAM_PU,
    intervalSeconds: config.SYNC_INTERVAL_SECONDS,
    timeZone: config.TIME_ZONE,
  });
  return { ...sync, stop: () => sync.stop().finally(() => simulator?.stop()) };
}
