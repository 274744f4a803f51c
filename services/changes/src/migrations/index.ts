import type { MigrationSet } from '@timetable/db';
import { createChangeLog } from './create-change-log.js';

export const CHANGES_SCHEMA = 'changes';

export const changesMigrations: MigrationSet = {
  '20260101000000_create_change_log': createChangeLog,
};
