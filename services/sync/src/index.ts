export { createSyncService, type SyncService, type SyncServiceDeps } from './create-sync-service.js';
export { syncMigrations, SYNC_SCHEMA } from './migrations/index.js';
export { SYNC_CONNECTIONS_KEPT } from './store-connections.js';
export type { SyncRunResult } from './features/runs/sync-runner.js';
export type { PairError, SyncRunStatus } from './features/write/sync-run-store.js';
export { uuidV5, TIMETABLE_NAMESPACE } from './features/normalise/uuid-v5.js';
export {
  academicPeriodIdOf,
  courseIdOf,
  eventIdOf,
  instructorIdOf,
  programIdOf,
  roomIdOf,
  semesterIdOf,
} from './features/normalise/upstream-ids.js';
export { loadSyncConfig, syncConfigFields, type SyncConfig } from './config.js';
export { groupCalendarUrl } from './features/read/starplan-client.js';
export { calendarBodyHash, jsonBodyHash } from './features/read/body-hash.js';
export { UPSTREAM_CONCURRENCY } from './features/read/read-upstream.js';
