/** The change-log process of the distributed mode (`npm run start:changes`). */
import { loadConfigOrExit } from '@timetable/config';
import { openDistributedBackends } from '@timetable/events';
import { runServiceProcess } from '@timetable/http';
import { createLogger } from '@timetable/observability';
import { loadChangesConfig } from './config.js';
import { createChangesService } from './create-changes-service.js';
import { changesMigrations, CHANGES_SCHEMA } from './migrations/index.js';

const config = loadConfigOrExit(() => loadChangesConfig());
const logger = createLogger({ name: 'changes', level: config.LOG_LEVEL });

runServiceProcess({
  name: 'changes',
  port: config.PORT,
  logger,
  async open({ fail }) {
    const backends = await openDistributedBackends({
      databaseUrl: config.DATABASE_URL,
      schema: CHANGES_SCHEMA,
      migrations: changesMigrations,
      kafkaBrokers: config.KAFKA_BROKERS,
      schemaRegistryUrl: config.SCHEMA_REGISTRY_URL,
      topicPrefix: config.KAFKA_TOPIC_PREFIX,
      clientId: 'changes',
      consumerRetryBudgetMs: config.CONSUMER_RETRY_BUDGET_SECONDS * 1000,
      onConsumerFailure: fail,
      logger,
    });
    const module = await createChangesService({ knex: backends.knex, bus: backends.bus, logger });
    return { module, close: backends.close };
  },
});
