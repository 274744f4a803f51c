import { createRedisConnection, MemoryCache, RedisCache, type Cache } from '@timetable/cache';
import { calendarApi, coursesApi, freeRoomsApi, instructorsApi, programsApi, roomsApi, searchApi, semestersApi, statisticsApi, topics, weekApi } from '@timetable/contracts';
import { defineService, type PlatformServices, type ServiceBuildContext } from '@timetable/service-kit';
import { loadCatalogConfig, type CatalogConfig } from './config.js';
import { createCatalogService } from './create-catalog-service.js';
import { CATALOG_SCHEMA, catalogMigrations } from './migrations/index.js';

/** What the catalog's build reads of the config, whichever host runs it. */
export type CatalogSettings = Pick<CatalogConfig, 'TIME_ZONE' | 'icalDomain'>;

/** The rendered-response cache: the embedded host shares its own; a process of its own uses Redis when REDIS_URL is set. */
export interface CatalogOverrides {
  cache: Cache;
}

/** The catalog: projects the entity states sync publishes and serves every catalog, week, search and iCal route. */
export const catalogApiService = defineService({
  name: 'catalog-api',
  loadConfig: loadCatalogConfig,
  store: { schema: CATALOG_SCHEMA, migrations: catalogMigrations },
  consumes: [topics.entities.name],
  produces: [],
  routes: [programsApi, semestersApi, coursesApi, roomsApi, freeRoomsApi, instructorsApi, searchApi, statisticsApi, weekApi, calendarApi],
  jobs: [],
  scalable: true,
  processOverrides(config: CatalogConfig, { logger, onClose }: PlatformServices): CatalogOverrides {
    if (!config.REDIS_URL) return { cache: new MemoryCache() };
    const redis = createRedisConnection({ url: config.REDIS_URL, keyPrefix: config.REDIS_KEY_PREFIX, logger });
    onClose('redis', () => redis.quit());
    return { cache: new RedisCache(redis) };
  },
  build: ({ config, knex, bus, logger, overrides }: ServiceBuildContext<CatalogSettings, CatalogOverrides>) =>
    createCatalogService({ knex, bus, cache: overrides.cache, logger, timeZone: config.TIME_ZONE, icalDomain: config.icalDomain }),
});
