import { developersApi, developerUsageApi, topics, type WebhookCounter } from '@timetable/contracts';
import { DeveloperIdentity } from '@timetable/http';
import { defineService, type ServiceBuildContext } from '@timetable/service-kit';
import { loadDeveloperAuthConfig, type DeveloperAuthConfig } from './config.js';
import { createDeveloperAuthService } from './create-developer-auth-service.js';
import { HttpWebhookCounter } from './features/developers/http-webhook-counter.js';
import { developerAuthMigrations, DEVELOPER_AUTH_SCHEMA } from './migrations/index.js';

/**
 * The identity the gateway signs developers with, and where a developer's webhooks are counted: in its own
 * process from INTERNAL_AUTH_SECRET and over HTTP at WEBHOOKS_URL; the embedded host shares its identity and
 * the in-process webhook module's counter.
 */
export interface DeveloperAuthOverrides {
  identity: DeveloperIdentity;
  webhookCounter: WebhookCounter;
}

/** Developer accounts and keys: serves /developers/*, verifies keys for the gateway, records usage. */
export const developerAuthService = defineService({
  name: 'developer-auth',
  loadConfig: loadDeveloperAuthConfig,
  store: { schema: DEVELOPER_AUTH_SCHEMA, migrations: developerAuthMigrations },
  consumes: [topics.usage.name],
  produces: [],
  routes: [developersApi, developerUsageApi],
  jobs: ['usage-retention'],
  scalable: false,
  processOverrides: (config: DeveloperAuthConfig): DeveloperAuthOverrides => ({
    identity: new DeveloperIdentity(config.INTERNAL_AUTH_SECRET),
    webhookCounter: new HttpWebhookCounter({ webhooksUrl: config.WEBHOOKS_URL }),
  }),
  build: ({ knex, bus, logger, overrides }: ServiceBuildContext<object, DeveloperAuthOverrides>) =>
    createDeveloperAuthService({ knex, bus, logger, identity: overrides.identity, webhookCounter: overrides.webhookCounter }),
});
