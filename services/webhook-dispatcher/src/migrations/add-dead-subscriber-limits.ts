import type { Migration } from '@timetable/db';

/**
 * webhooks.disabled_reason and disabled_at: set when the system disables a webhook whose deliveries kept
 * failing (WEBHOOK_DISABLE_AFTER_DAYS), cleared when its owner enables it again.
 * deliveries_pending_since: the pending deliveries by age, so the job that gives up on those pending past
 * DELIVERY_MAX_PENDING_HOURS reads only them, never the finished history kept for the retention period.
 */
export const addDeadSubscriberLimits: Migration = {
  async up(knex) {
    await knex.schema.alterTable('webhooks', (table) => {
      table.text('disabled_reason');
      table.timestamp('disabled_at', { useTz: true });
    });
    await knex.raw("create index deliveries_pending_since on deliveries (created_at) where status = 'pending'");
  },
  async down(knex) {
    await knex.raw('drop index deliveries_pending_since');
    await knex.schema.alterTable('webhooks', (table) => {
      table.dropColumn('disabled_at');
      table.dropColumn('disabled_reason');
    });
  },
};
