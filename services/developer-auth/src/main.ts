/** The developer-auth process of the distributed mode (`npm run start:developer-auth`). */
import { loadConfigOrExit } from '@timetable/config';
import { openDistributedBackends } from '@timetable/events';
import { DeveloperIdentity, runServiceProcess } from '@timetable/http';
import { createLogger } from '@timetable/observability';
import { loadDeveloperAuthConfig } from './config.js';
import { createDeveloperAuthService } from './create-developer-auth-service.js';
import { HttpWebhookCounter } from './features/developers/http-webhook-counter.js';
import { developerAuthMigrations, DEVELOPER_AUTH_SCHEMA } from './migrations/index.js';

const config = loadConfigOrExit(() => loadDeveloperAuthConfig());
const logger = createLogger({ name: 'developer-auth', level: config.LOG_LEVEL });

runServiceProcess({
  name: 'developer-auth',
  port: config.PORT,
  logger,
  async open({ fail }) {
    const backends = await openDistributedBackends({
      databaseUrl: config.DATABASE_URL,
      schema: DEVELOPER_AUTH_SCHEMA,
      migrations: developerAuthMigrations,
      kafkaBrokers: config.KAFKA_BROKERS,
      schemaRegistryUrl: config.SCHEMA_REGISTRY_URL,
      topicPrefix: config.KAFKA_TOPIC_PREFIX,
      clientId: 'developer-auth',
      consumerRetryBudgetMs: config.CONSUMER_RETRY_BUDGET_SECONDS * 1000,
      onConsumerFailure: fail,
      logger,
    });
    const module = await createDeveloperAuthService({
      knex: backends.knex,
      bus: backends.bus,
      logger,
      identity: new DeveloperIdentity(config.INTERNAL_AUTH_SECRET),
      webhookCounter: new HttpWebhookCounter(config.WEBHOOKS_URL),
    });
    return { module, close: backends.close };
  },
});
