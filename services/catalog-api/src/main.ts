/** The catalog-api process of the distributed mode (`npm run start:catalog-api`); scales out behind the gateway. */
import { createRedisConnection, MemoryCache, RedisCache, type Cache } from '@timetable/cache';
import { loadConfigOrExit } from '@timetable/config';
import { openDistributedBackends } from '@timetable/events';
import { runServiceProcess } from '@timetable/http';
import { createLogger } from '@timetable/observability';
import { loadCatalogConfig } from './config.js';
import { createCatalogService } from './create-catalog-service.js';
import { CATALOG_SCHEMA, catalogMigrations } from './migrations/index.js';

const config = loadConfigOrExit(() => loadCatalogConfig());
const logger = createLogger({ name: 'catalog-api', level: config.LOG_LEVEL });

runServiceProcess({
  name: 'catalog-api',
  port: config.PORT,
  logger,
  async open({ fail }) {
    const backends = await openDistributedBackends({
      databaseUrl: config.DATABASE_URL,
      schema: CATALOG_SCHEMA,
      migrations: catalogMigrations,
      kafkaBrokers: config.KAFKA_BROKERS,
      schemaRegistryUrl: config.SCHEMA_REGISTRY_URL,
      topicPrefix: config.KAFKA_TOPIC_PREFIX,
      clientId: 'catalog-api',
      consumerRetryBudgetMs: config.CONSUMER_RETRY_BUDGET_SECONDS * 1000,
      onConsumerFailure: fail,
      logger,
    });
    const redis = config.REDIS_URL ? createRedisConnection(config.REDIS_URL) : undefined;
    redis?.on('error', (error: unknown) => logger.warn({ err: error }, 'redis connection error'));
    const cache: Cache = redis ? new RedisCache(redis, `${config.REDIS_KEY_PREFIX}timetable:cache:`) : new MemoryCache();
    const module = await createCatalogService({
      knex: backends.knex,
      bus: backends.bus,
      cache,
      logger,
      timeZone: config.TIME_ZONE,
      icalDomain: config.icalDomain,
    });
    return {
      module,
      async close() {
        await redis?.quit();
        await backends.close();
      },
    };
  },
});
