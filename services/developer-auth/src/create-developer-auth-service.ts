import { Router } from 'express';
import type { KeyVerifier, WebhookCounter } from '@timetable/contracts';
import { isDatabaseReachable, type Knex } from '@timetable/db';
import { consumerReadiness, type EventBus } from '@timetable/events';
import type { DeveloperIdentity, ServiceModule } from '@timetable/http';
import { PeriodicJob, type Logger } from '@timetable/observability';
import { DeveloperKeyVerifier } from './features/api-keys/developer-key-verifier.js';
import { internalKeyRoutes } from './features/api-keys/internal-key-routes.js';
import { DeveloperService } from './features/developers/developer-service.js';
import { developersRoutes } from './features/developers/developers-routes.js';
import { PostgresDeveloperStore } from './features/developers/postgres-developer-store.js';
import { subscribeUsage } from './features/usage/usage-consumer.js';
import { deleteExpiredUsage } from './features/usage/usage-retention.js';
import { usageRoutes } from './features/usage/usage-routes.js';
import { UsageStore } from './features/usage/usage-store.js';

const RETENTION_INTERVAL_MS = 60 * 60_000;

export interface DeveloperAuthServiceDeps {
  /** On the `developer_auth` schema, already migrated with `developerAuthMigrations`. */
  knex: Knex;
  bus: EventBus;
  logger: Logger;
  identity: DeveloperIdentity;
  webhookCounter: WebhookCounter;
  now?: () => Date;
}

export type DeveloperAuthModule = ServiceModule & {
  keyVerifier: KeyVerifier;
  /** One run of the usage retention job; it also runs at start and hourly. */
  deleteExpiredUsage(): Promise<number>;
};

/** Developer accounts and keys: serves /developers/*, verifies keys for the gateway, records usage. */
export function createDeveloperAuthService(deps: DeveloperAuthServiceDeps): Promise<DeveloperAuthModule> {
  const now = deps.now ?? (() => new Date());
  const logger = deps.logger.child({ service: 'developer-auth' });
  const developers = new PostgresDeveloperStore({ knex: deps.knex });
  const usage = new UsageStore({ knex: deps.knex });
  const service = new DeveloperService({ store: developers, webhookCounter: deps.webhookCounter, logger, now });
  const keyVerifier = new DeveloperKeyVerifier({ store: developers });
  const consumer = subscribeUsage(deps.bus, usage);
  const retention = () => deleteExpiredUsage(usage, now());
  const retentionJob = new PeriodicJob({ name: 'usage-retention', intervalMs: RETENTION_INTERVAL_MS, logger, run: retention });
  const routes = Router();
  routes.use(developersRoutes(service, deps.identity), usageRoutes(usage, deps.identity, now));
  return Promise.resolve({
    name: 'developer-auth',
    routes,
    internalRoutes: internalKeyRoutes(keyVerifier),
    keyVerifier,
    deleteExpiredUsage: retention,
    readiness: [
      { name: 'developer-auth-store', check: () => isDatabaseReachable(deps.knex) },
      consumerReadiness('developer-auth-usage-consumer', consumer),
    ],
    async start() {
      await consumer.start();
      await retentionJob.start();
    },
    async stop() {
      await retentionJob.stop();
      await consumer.stop();
    },
  });
}
