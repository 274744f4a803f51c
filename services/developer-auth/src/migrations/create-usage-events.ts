import type { Migration } from '@timetable/db';

/**
 * Counted requests, one row per usage event id. No foreign key to developers: the gateway is the source,
 * and a row for an unknown developer must not stall the consumer.
 */
export const createUsageEvents: Migration = {
  async up(knex) {
    await knex.schema.createTable('usage_events', (table) => {
      table.uuid('id').primary();
      table.uuid('developer_id').notNullable();
      table.text('endpoint').notNullable();
      table.integer('status_code').notNullable();
      table.timestamp('occurred_at', { useTz: true }).notNullable();
      table.index(['developer_id', 'occurred_at'], 'usage_events_developer_occurred_idx');
    });
  },
  async down(knex) {
    await knex.schema.dropTable('usage_events');
  },
};
