import { Router } from 'express';
import type { KeyVerifier, WebhookCounter } from '@timetable/contracts';
import { isDatabaseReachable, type Knex } from '@timetable/db';
import { consumerReadiness, type EventBus } from '@timetable/events';
import type { DeveloperIdentity, ServiceModule } from '@timetable/http';
import type { Logger } from '@timetable/observability';
import { internalKeyRoutes } from './features/api-keys/internal-key-routes.js';
import { StoredKeyVerifier } from './features/api-keys/stored-key-verifier.js';
import { DeveloperService } from './features/developers/developer-service.js';
import { developersRouter } from './features/developers/developers-router.js';
import { KnexDeveloperStore } from './features/developers/knex-developer-store.js';
import { KnexUsageStore } from './features/usage/knex-usage-store.js';
import { subscribeUsage } from './features/usage/usage-consumer.js';
import { usageRouter } from './features/usage/usage-router.js';

export interface DeveloperAuthServiceDeps {
  /** On the `developer_auth` schema, already migrated with `developerAuthMigrations`. */
  knex: Knex;
  bus: EventBus;
  logger: Logger;
  identity: DeveloperIdentity;
  webhookCounter: WebhookCounter;
  /** /ready fails while the usage consumer is more than this many messages behind (CONSUMER_MAX_LAG). */
  maxConsumerLag?: number | undefined;
  now?: () => Date;
}

export type DeveloperAuthModule = ServiceModule & { keyVerifier: KeyVerifier };

/** Developer accounts and keys: serves /developers/*, verifies keys for the gateway, records usage. */
export function createDeveloperAuthService(deps: DeveloperAuthServiceDeps): Promise<DeveloperAuthModule> {
  const now = deps.now ?? (() => new Date());
  const logger = deps.logger.child({ service: 'developer-auth' });
  const developers = new KnexDeveloperStore(deps.knex);
  const usage = new KnexUsageStore(deps.knex);
  const service = new DeveloperService({ store: developers, webhookCounter: deps.webhookCounter, logger, now });
  const keyVerifier = new StoredKeyVerifier(developers);
  const consumer = subscribeUsage(deps.bus, usage);
  const routes = Router();
  routes.use(developersRouter(service, deps.identity), usageRouter(usage, deps.identity, now));
  return Promise.resolve({
    name: 'developer-auth',
    routes,
    internalRoutes: internalKeyRoutes(keyVerifier),
    keyVerifier,
    readiness: [
      { name: 'developer-auth-store', check: () => isDatabaseReachable(deps.knex) },
      consumerReadiness('developer-auth-usage-consumer', consumer, deps.maxConsumerLag),
    ],
    start: () => consumer.start(),
    stop: () => consumer.stop(),
  });
}
