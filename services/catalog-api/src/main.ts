/** The catalog-api process of the distributed mode (`npm run start:catalog-api`); scales out behind the gateway. */
import { createRedisConnection, MemoryCache, RedisCache } from '@timetable/cache';
import { runService } from '@timetable/service-kit';
import { loadCatalogConfig } from './config.js';
import { createCatalogService } from './create-catalog-service.js';
import { CATALOG_SCHEMA, catalogMigrations } from './migrations/index.js';

runService({
  name: 'catalog-api',
  loadConfig: loadCatalogConfig,
  store: { schema: CATALOG_SCHEMA, migrations: catalogMigrations },
  build({ config, logger, knex, bus, onClose }) {
    const redis = config.REDIS_URL ? createRedisConnection({ url: config.REDIS_URL, keyPrefix: config.REDIS_KEY_PREFIX, logger }) : undefined;
    if (redis) onClose('redis', () => redis.quit());
    const cache = redis ? new RedisCache(redis) : new MemoryCache();
    return createCatalogService({ knex, bus, cache, logger, timeZone: config.TIME_ZONE, icalDomain: config.icalDomain });
  },
});
