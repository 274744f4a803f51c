import type { Migration } from '@timetable/db';

/**
 * webhook_recoveries: when `recover` was last accepted for a webhook, the one fact its limit (one a minute)
 * needs. Tests and redeliveries are counted from their delivery rows; a recover may queue none, so it
 * leaves its own.
 */
export const addRecoverLimit: Migration = {
  async up(knex) {
    await knex.schema.createTable('webhook_recoveries', (table) => {
      table.uuid('webhook_id').primary();
      table.timestamp('accepted_at', { useTz: true }).notNullable();
    });
  },
  async down(knex) {
    await knex.schema.dropTable('webhook_recoveries');
  },
};
