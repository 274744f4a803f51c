import type { MigrationSet } from '@timetable/db';
import { addChangeLogPosition } from './add-change-log-position.js';
import { createChangeLog } from './create-change-log.js';

export const CHANGES_SCHEMA = 'changes';

export const changesMigrations: MigrationSet = {
  '20260101000000_create_change_log': createChangeLog,
  '20261210000000_add_change_log_position': addChangeLogPosition,
};
