import type { Migration } from '@timetable/db';

/**
 * webhooks: soft-deleted (deleted_at) so their deliveries keep a parent and stay failed, not vanish.
 * matched_changes: the part of a change a delivery body needs, kept only for changes that matched;
 * `json` (not jsonb) so entity data reaches subscribers with its key order intact.
 * deliveries: unique (webhook_id, change_id) makes matching idempotent; claim_token/claimed_until
 * is the lease a dispatcher holds while it sends an attempt.
 */
export const createWebhookTables: Migration = {
  async up(knex) {
    await knex.schema.createTable('webhooks', (table) => {
      table.uuid('id').primary();
      table.uuid('developer_id').notNullable();
      table.text('url').notNullable();
      table.text('secret');
      table.text('filter_scope').notNullable();
      table.uuid('filter_program_id');
      table.uuid('filter_semester_id');
      table.uuid('filter_course_id');
      table.uuid('filter_room_id');
      table.uuid('filter_instructor_id');
      table.specificType('event_types', 'text[]').notNullable();
      table.boolean('is_active').notNullable();
      table.timestamp('created_at', { useTz: true }).notNullable();
      table.timestamp('updated_at', { useTz: true }).notNullable();
      table.timestamp('deleted_at', { useTz: true });
    });
    await knex.raw('create index webhooks_developer on webhooks (developer_id) where deleted_at is null');
    await knex.raw('create index webhooks_matchable on webhooks (filter_scope) where is_active and deleted_at is null');

    await knex.schema.createTable('matched_changes', (table) => {
      table.uuid('id').primary();
      table.text('entity_type').notNullable();
      table.text('entity_id').notNullable();
      table.text('action').notNullable();
      table.json('previous_data');
      table.json('new_data');
      table.json('changed_fields').notNullable();
      table.timestamp('created_at', { useTz: true }).notNullable();
    });

    await knex.schema.createTable('deliveries', (table) => {
      table.uuid('id').primary();
      table.uuid('webhook_id').notNullable().references('id').inTable('webhooks');
      table.uuid('change_id').references('id').inTable('matched_changes');
      table.text('message_id').notNullable();
      table.text('event_type').notNullable();
      table.text('status').notNullable();
      table.integer('attempts').notNullable().defaultTo(0);
      table.timestamp('last_attempt_at', { useTz: true });
      table.timestamp('next_retry_at', { useTz: true });
      table.integer('response_code');
      table.text('response_body');
      table.text('error_message');
      table.timestamp('delivered_at', { useTz: true });
      table.json('payload');
      table.uuid('claim_token');
      table.timestamp('claimed_until', { useTz: true });
      table.timestamp('created_at', { useTz: true }).notNullable();
      table.unique(['webhook_id', 'change_id']);
    });
    await knex.raw("alter table deliveries add constraint deliveries_status check (status in ('pending', 'delivered', 'failed'))");
    await knex.raw('create index deliveries_by_webhook on deliveries (webhook_id, created_at desc, id desc)');
    await knex.raw("create index deliveries_due on deliveries (next_retry_at) where status = 'pending'");
  },
  async down(knex) {
    await knex.schema.dropTable('deliveries');
    await knex.schema.dropTable('matched_changes');
    await knex.schema.dropTable('webhooks');
  },
};
