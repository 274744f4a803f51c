import type { MigrationSet } from '@timetable/db';
import { createWebhookTables } from './create-webhook-tables.js';

export const WEBHOOKS_SCHEMA = 'webhooks';

export const webhookMigrations: MigrationSet = {
  '20250101000000_create_webhook_tables': createWebhookTables,
};
