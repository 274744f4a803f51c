import type { MigrationSet } from '@timetable/db';
import { createDevelopers } from './create-developers.js';
import { createUsageEvents } from './create-usage-events.js';

export const DEVELOPER_AUTH_SCHEMA = 'developer_auth';

export const developerAuthMigrations: MigrationSet = {
  '20260101000000_create_developers': createDevelopers,
  '20260101000100_create_usage_events': createUsageEvents,
};
