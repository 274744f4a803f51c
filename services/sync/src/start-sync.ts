/** Starts the sync service of the distributed mode; main.ts loads it once the process is set up. */
import { runService } from '@timetable/service-kit';
import { loadSyncConfig } from './config.js';
import { createSyncService } from './create-sync-service.js';
import { syncMigrations, SYNC_SCHEMA } from './migrations/index.js';

runService({
  name: 'sync',
  loadConfig: loadSyncConfig,
  store: { schema: SYNC_SCHEMA, migrations: syncMigrations },
  build: ({ config, knex, bus, logger }) =>
    createSyncService({
      knex,
      bus,
      logger,
      upstreamBaseUrl: config.UPSTREAM_BASE_URL,
      planningUnit: config.UPSTREAM_PU,
      intervalSeconds: config.SYNC_INTERVAL_SECONDS,
      timeZone: config.TIME_ZONE,
    }),
});
