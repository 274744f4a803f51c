import { syncStatusApi, topics, upstreamCalendarApi } from '@timetable/contracts';
import { defineService, type ServiceBuildContext } from '@timetable/service-kit';
import { loadSyncConfig, type SyncConfig } from './config.js';
import { createSyncService } from './create-sync-service.js';
import { SYNC_NODE_OPTIONS } from './heap-cap.js';
import { syncMigrations, SYNC_SCHEMA } from './migrations/index.js';
import { SYNC_CONNECTIONS_KEPT } from './store-connections.js';

/** What the sync's build reads of the config, whichever host runs it. */
export type SyncSettings = Pick<SyncConfig, 'UPSTREAM_PU' | 'SYNC_INTERVAL_SECONDS' | 'TIME_ZONE' | 'UPSTREAM_MAX_BODY_BYTES'>;

/** The upstream it mirrors: UPSTREAM_BASE_URL in its own process; the embedded host may start the built-in simulator instead. */
export interface SyncOverrides {
  upstreamBaseUrl: string;
}

/** The sync: mirrors the StarPlan upstream into entity states and changes, published through its outbox. */
export const syncService = defineService({
  name: 'sync',
  loadConfig: loadSyncConfig,
  store: { schema: SYNC_SCHEMA, migrations: syncMigrations, connectionsKept: SYNC_CONNECTIONS_KEPT },
  consumes: [],
  produces: [topics.changes.name, topics.entities.name],
  routes: [syncStatusApi, upstreamCalendarApi],
  jobs: ['sync', 'outbox-relay'],
  // One scheduler per upstream: two replicas would fetch and diff the same timetable twice.
  scalable: false,
  nodeOptions: SYNC_NODE_OPTIONS,
  processOverrides: (config: SyncConfig): SyncOverrides => ({ upstreamBaseUrl: config.UPSTREAM_BASE_URL }),
  build: ({ config, knex, bus, logger, overrides }: ServiceBuildContext<SyncSettings, SyncOverrides>) =>
    createSyncService({
      knex,
      bus,
      logger,
      upstreamBaseUrl: overrides.upstreamBaseUrl,
      planningUnit: config.UPSTREAM_PU,
      intervalSeconds: config.SYNC_INTERVAL_SECONDS,
      timeZone: config.TIME_ZONE,
      maxBodyBytes: config.UPSTREAM_MAX_BODY_BYTES,
    }),
});
