import type { MigrationSet } from '@timetable/db';
import { addDeadSubscriberLimits } from './add-dead-subscriber-limits.js';
import { addDeliveryClaimedBy } from './add-delivery-claimed-by.js';
import { addDeliveryFairness } from './add-delivery-fairness.js';
import { addLeaseCounts } from './add-lease-counts.js';
import { addRecoverLimit } from './add-recover-limit.js';
import { createWebhookTables } from './create-webhook-tables.js';

export const WEBHOOKS_SCHEMA = 'webhooks';

export const webhookMigrations: MigrationSet = {
  '20250101000000_create_webhook_tables': createWebhookTables,
  '20251201000000_add_delivery_fairness': addDeliveryFairness,
  '20261125000000_add_delivery_claimed_by': addDeliveryClaimedBy,
  '20261127000000_add_lease_counts': addLeaseCounts,
  '20261201000000_add_recover_limit': addRecoverLimit,
  '20261208000000_add_dead_subscriber_limits': addDeadSubscriberLimits,
};
