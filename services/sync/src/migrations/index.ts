import type { MigrationSet } from '@timetable/db';
import { createDeadLetterTable, createOutboxTable } from '@timetable/events';
import { addFeedValidators } from './add-feed-validators.js';
import { addRunFence } from './add-run-fence.js';
import { addStagedEntities } from './add-staged-entities.js';
import { addUpstreamBodies } from './add-upstream-bodies.js';
import { createSyncTables } from './create-sync-tables.js';

export const SYNC_SCHEMA = 'sync';

export const syncMigrations: MigrationSet = {
  '20250101000000_create_sync_tables': createSyncTables,
  '20250101000100_create_outbox': createOutboxTable,
  '20261125000000_add_upstream_bodies': addUpstreamBodies,
  '20261125000100_add_feed_validators': addFeedValidators,
  '20261125000200_add_staged_entities': addStagedEntities,
  '20261206000000_add_run_fence': addRunFence,
  '20261208000000_create_dead_letters': createDeadLetterTable,
};
