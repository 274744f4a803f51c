/** The developer-auth process of the distributed mode (`npm run start:developer-auth`). */
import { DeveloperIdentity } from '@timetable/http';
import { runService } from '@timetable/service-kit';
import { loadDeveloperAuthConfig } from './config.js';
import { createDeveloperAuthService } from './create-developer-auth-service.js';
import { HttpWebhookCounter } from './features/developers/http-webhook-counter.js';
import { developerAuthMigrations, DEVELOPER_AUTH_SCHEMA } from './migrations/index.js';

runService({
  name: 'developer-auth',
  loadConfig: loadDeveloperAuthConfig,
  store: { schema: DEVELOPER_AUTH_SCHEMA, migrations: developerAuthMigrations },
  build: ({ config, knex, bus, logger }) =>
    createDeveloperAuthService({
      knex,
      bus,
      logger,
      identity: new DeveloperIdentity(config.INTERNAL_AUTH_SECRET),
      webhookCounter: new HttpWebhookCounter({ webhooksUrl: config.WEBHOOKS_URL }),
    }),
});
