import { topics, webhooksApi } from '@timetable/contracts';
import { DeveloperIdentity } from '@timetable/http';
import { defineService, type ServiceBuildContext } from '@timetable/service-kit';
import { loadWebhookProcessConfig, webhookSettingsFrom, type WebhookConfig, type WebhookProcessConfig } from './config.js';
import { createWebhookService } from './create-webhook-service.js';
import { parseSecretsKey } from './features/secrets/secret-cipher.js';
import { webhookMigrations, WEBHOOKS_SCHEMA } from './migrations/index.js';

/**
 * The identity the gateway signs developers with and the key that encrypts webhook secrets: in its own
 * process from INTERNAL_AUTH_SECRET and WEBHOOK_SECRETS_KEY; the embedded host shares its identity and may
 * generate the key under DATA_DIR.
 */
export interface WebhookDispatcherOverrides {
  identity: DeveloperIdentity;
  secretsKey: Buffer;
}

/** Webhooks: CRUD routes, the change matcher, the delivery loop, retention and the limits on dead subscribers. */
export const webhookDispatcherService = defineService({
  name: 'webhook-dispatcher',
  loadConfig: loadWebhookProcessConfig,
  store: { schema: WEBHOOKS_SCHEMA, migrations: webhookMigrations },
  consumes: [topics.changes.name],
  produces: [],
  routes: [webhooksApi],
  jobs: ['delivery', 'delivery-retention', 'dead-subscribers'],
  scalable: true,
  processOverrides: (config: WebhookProcessConfig): WebhookDispatcherOverrides => ({
    identity: new DeveloperIdentity(config.INTERNAL_AUTH_SECRET),
    secretsKey: parseSecretsKey(config.WEBHOOK_SECRETS_KEY),
  }),
  build: ({ config, knex, bus, logger, overrides }: ServiceBuildContext<WebhookConfig, WebhookDispatcherOverrides>) =>
    createWebhookService({ knex, bus, logger, identity: overrides.identity, secretsKey: overrides.secretsKey, ...webhookSettingsFrom(config) }),
});
