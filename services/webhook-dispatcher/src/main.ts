/** The webhook-dispatcher process of the distributed mode (`npm run start:webhook-dispatcher`). */
import { DeveloperIdentity } from '@timetable/http';
import { runService } from '@timetable/service-kit';
import { loadWebhookProcessConfig, webhookSettingsFrom } from './config.js';
import { createWebhookService } from './create-webhook-service.js';
import { parseSecretsKey } from './features/secrets/secret-cipher.js';
import { webhookMigrations, WEBHOOKS_SCHEMA } from './migrations/index.js';

runService({
  name: 'webhook-dispatcher',
  loadConfig: loadWebhookProcessConfig,
  store: { schema: WEBHOOKS_SCHEMA, migrations: webhookMigrations },
  build: ({ config, knex, bus, logger }) =>
    createWebhookService({
      knex,
      bus,
      logger,
      identity: new DeveloperIdentity(config.INTERNAL_AUTH_SECRET),
      secretsKey: parseSecretsKey(config.WEBHOOK_SECRETS_KEY),
      ...webhookSettingsFrom(config),
    }),
});
