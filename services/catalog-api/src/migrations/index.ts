import type { MigrationSet } from '@timetable/db';
import { createCatalogTables } from './create-catalog-tables.js';
import { createFeedDates } from './create-feed-dates.js';

export const CATALOG_SCHEMA = 'catalog';

export const catalogMigrations: MigrationSet = {
  '20260101000000_create_catalog_tables': createCatalogTables,
  '20261210000000_create_feed_dates': createFeedDates,
};
