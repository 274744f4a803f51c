/** The sync process of the distributed mode (`npm run start:sync`): mirrors UPSTREAM_BASE_URL into Kafka. */
import { runService } from '@timetable/service-kit';
import { loadSyncConfig } from './config.js';
import { createSyncService } from './create-sync-service.js';
import { syncMigrations, SYNC_SCHEMA } from './migrations/index.js';
import { SYNC_CONNECTIONS_KEPT } from './store-connections.js';

runService({
  name: 'sync',
  loadConfig: loadSyncConfig,
  store: { schema: SYNC_SCHEMA, migrations: syncMigrations, connectionsKept: SYNC_CONNECTIONS_KEPT },
  build: ({ config, knex, bus, logger }) =>
    createSyncService({
      knex,
      bus,
      logger,
      upstreamBaseUrl: config.UPSTREAM_BASE_URL,
      planningUnit: config.UPSTREAM_PU,
      intervalSeconds: config.SYNC_INTERVAL_SECONDS,
      timeZone: config.TIME_ZONE,
      maxBodyBytes: config.UPSTREAM_MAX_BODY_BYTES,
    }),
});
