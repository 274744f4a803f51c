export { createSyncService, type SyncService, type SyncServiceDeps } from './create-sync-service.js';
export { syncMigrations, SYNC_SCHEMA } from './migrations/index.js';
export { SYNC_CONNECTIONS_KEPT } from './store-connections.js';
export type { SyncRunResult } from './features/runs/run-result.js';
export type { PairError, SyncRunStatus } from './features/write/sync-run-store.js';
export { loadSyncConfig, syncConfigFields, type SyncConfig } from './config.js';
export { SYNC_HEAP_CAP_MB, SYNC_NODE_OPTIONS } from './heap-cap.js';
export { syncService, type SyncOverrides, type SyncSettings } from './sync-service.js';
