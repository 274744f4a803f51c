import type { MigrationSet } from '@timetable/db';
import { createDevelopers } from './create-developers.js';
import { createUsageEvents } from './create-usage-events.js';
import { indexUsageByTime } from './index-usage-by-time.js';

export const DEVELOPER_AUTH_SCHEMA = 'developer_auth';

export const developerAuthMigrations: MigrationSet = {
  '20260101000000_create_developers': createDevelopers,
  '20260101000100_create_usage_events': createUsageEvents,
  '20261201000000_index_usage_by_time': indexUsageByTime,
};
