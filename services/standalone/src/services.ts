import { CATALOG_SCHEMA, catalogMigrations, createCatalogService } from '@timetable/catalog-api';
import { CHANGES_SCHEMA, changesMigrations, createChangesService } from '@timetable/changes';
import type { KeyVerifier } from '@timetable/contracts';
import { createDeveloperAuthService, DEVELOPER_AUTH_SCHEMA, developerAuthMigrations } from '@timetable/developer-auth';
import type { ServiceModule } from '@timetable/http';
import { startSimulator } from '@timetable/starplan-sim';
import { createSyncService, SYNC_CONNECTIONS_KEPT, SYNC_SCHEMA, syncMigrations, type SyncService } from '@timetable/sync';
import { createWebhookService, webhookMigrations, webhookSettingsFrom, WEBHOOKS_SCHEMA } from '@timetable/webhook-dispatcher';
import type { EmbeddedContext } from './embedded-context.js';
import { embeddedSecretsKey } from './webhook-secrets-key.js';

export interface EmbeddedServices {
  modules: ServiceModule[];
  /** Resolves once the first sync run ended and every module handled what it published. */
  firstSyncPublished(): Promise<void>;
  /** developer-auth's key check for the gateway; without it key routes answer 503. */
  keyVerifier?: KeyVerifier;
}

/**
 * Builds every service of the embedded mode. The in-process bus keeps what was published and lets a group
 * that reads `fromBeginning` catch up, as Kafka does; consumers are still listed before sync, so the webhook
 * matcher (which reads only what comes after it starts) sees the first run's changes too.
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
    secretsKey: await embeddedSecretsKey(context.config.DATA_DIR, context.config.WEBHOOK_SECRETS_KEY, context.logger),
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
  const sync = await buildSync(context);
  modules.push(sync);
  return { modules, keyVerifier: developerAuth.keyVerifier, firstSyncPublished: () => sync.whenFirstRunPublished() };
}

async function buildSync(context: EmbeddedContext): Promise<SyncService> {
  const { config } = context;
  const simulator = config.UPSTREAM_BASE_URL
    ? undefined
    : await startSimulator({ port: 0, onError: (error) => context.logger.error({ err: error }, 'the built-in StarPlan simulator could not build an answer') });
  const sync = await createSyncService({
    knex: await context.openStore(SYNC_SCHEMA, syncMigrations, { connectionsKept: SYNC_CONNECTIONS_KEPT }),
    bus: context.bus,
    logger: context.logger,
    upstreamBaseUrl: config.UPSTREAM_BASE_URL ?? simulator?.url ?? '',
    planningUnit: config.UPSTREAM_PU,
    intervalSeconds: config.SYNC_INTERVAL_SECONDS,
    timeZone: config.TIME_ZONE,
    maxBodyBytes: config.UPSTREAM_MAX_BODY_BYTES,
  });
  return { ...sync, stop: () => sync.stop().finally(() => simulator?.stop()) };
}
