/** The webhook-dispatcher process of the distributed mode (`npm run start:webhook-dispatcher`). */
import { loadConfigOrExit } from '@timetable/config';
import { openDistributedBackends } from '@timetable/events';
import { DeveloperIdentity, runServiceProcess } from '@timetable/http';
import { createLogger } from '@timetable/observability';
import { loadWebhookProcessConfig, webhookSettingsFrom } from './config.js';
import { createWebhookService } from './create-webhook-service.js';
import { parseSecretsKey } from './features/secrets/secret-cipher.js';
import { webhookMigrations, WEBHOOKS_SCHEMA } from './migrations/index.js';

const config = loadConfigOrExit(() => loadWebhookProcessConfig());
const logger = createLogger({ name: 'webhook-dispatcher', level: config.LOG_LEVEL });

runServiceProcess({
  name: 'webhook-dispatcher',
  port: config.PORT,
  logger,
  async open({ fail }) {
    const backends = await openDistributedBackends({
      databaseUrl: config.DATABASE_URL,
      schema: WEBHOOKS_SCHEMA,
      migrations: webhookMigrations,
      kafkaBrokers: config.KAFKA_BROKERS,
      schemaRegistryUrl: config.SCHEMA_REGISTRY_URL,
      topicPrefix: config.KAFKA_TOPIC_PREFIX,
      clientId: 'webhook-dispatcher',
      consumerRetryBudgetMs: config.CONSUMER_RETRY_BUDGET_SECONDS * 1000,
      onConsumerFailure: fail,
      logger,
    });
    const module = await createWebhookService({
      knex: backends.knex,
      bus: backends.bus,
      logger,
      identity: new DeveloperIdentity(config.INTERNAL_AUTH_SECRET),
      secretsKey: parseSecretsKey(config.WEBHOOK_SECRETS_KEY),
      ...webhookSettingsFrom(config),
    });
    return { module, close: backends.close };
  },
});
