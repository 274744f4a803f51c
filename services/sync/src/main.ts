/** The sync process of the distributed mode (`npm run start:sync`): mirrors UPSTREAM_BASE_URL into Kafka. */
import { loadConfigOrExit } from '@timetable/config';
import { openDistributedBackends } from '@timetable/events';
import { runServiceProcess } from '@timetable/http';
import { createLogger } from '@timetable/observability';
import { loadSyncConfig } from './config.js';
import { createSyncService } from './create-sync-service.js';
import { syncMigrations, SYNC_SCHEMA } from './migrations/index.js';

const config = loadConfigOrExit(() => loadSyncConfig());
const logger = createLogger({ name: 'sync', level: config.LOG_LEVEL });

runServiceProcess({
  name: 'sync',
  port: config.PORT,
  logger,
  async open({ fail }) {
    const backends = await openDistributedBackends({
      databaseUrl: config.DATABASE_URL,
      schema: SYNC_SCHEMA,
      migrations: syncMigrations,
      kafkaBrokers: config.KAFKA_BROKERS,
      schemaRegistryUrl: config.SCHEMA_REGISTRY_URL,
      topicPrefix: config.KAFKA_TOPIC_PREFIX,
      clientId: 'sync',
      consumerRetryBudgetMs: config.CONSUMER_RETRY_BUDGET_SECONDS * 1000,
      onConsumerFailure: fail,
      logger,
    });
    const module = await createSyncService({
      knex: backends.knex,
      bus: backends.bus,
      logger,
      upstreamBaseUrl: config.UPSTREAM_BASE_URL,
      planningUnit: config.UPSTREAM_PU,
      intervalSeconds: config.SYNC_INTERVAL_SECONDS,
      timeZone: config.TIME_ZONE,
    });
    return { module, close: backends.close };
  },
});
