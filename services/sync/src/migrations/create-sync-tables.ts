import type { Migration } from '@timetable/db';

/** The last published state per entity, the run log and the per-pair errors of each run. */
export const createSyncTables: Migration = {
  async up(knex) {
    await knex.schema.createTable('snapshot_entities', (table) => {
      table.text('entity_type').notNullable();
      table.text('entity_id').notNullable();
      table.jsonb('data').notNullable();
      table.text('content_hash').notNullable();
      // Not part of the hash: which upstream fetches produced the entity (for the safety valve).
      table.specificType('scopes', 'text[]').notNullable().defaultTo('{}');
      table.timestamp('updated_at', { useTz: true }).notNullable();
      table.primary(['entity_type', 'entity_id']);
    });
    await knex.schema.createTable('sync_runs', (table) => {
      table.uuid('id').primary();
      table.timestamp('started_at', { useTz: true }).notNullable();
      table.timestamp('finished_at', { useTz: true }).notNullable();
      table.integer('planning_unit_id');
      table.text('status').notNullable();
      table.integer('created_count').notNullable().defaultTo(0);
      table.integer('updated_count').notNullable().defaultTo(0);
      table.integer('deleted_count').notNullable().defaultTo(0);
      table.integer('entity_count').notNullable().defaultTo(0);
      table.text('error_message');
      table.index(['finished_at']);
    });
    await knex.schema.createTable('sync_errors', (table) => {
      table.bigIncrements('id').primary();
      table.uuid('sync_run_id').notNullable().references('id').inTable('sync_runs').onDelete('CASCADE');
      table.text('error_message').notNullable();
      table.uuid('program_id');
      table.uuid('semester_id');
      table.timestamp('occurred_at', { useTz: true }).notNullable();
      table.index(['sync_run_id']);
    });
  },
  async down(knex) {
    await knex.schema.dropTable('sync_errors');
    await knex.schema.dropTable('sync_runs');
    await knex.schema.dropTable('snapshot_entities');
  },
};
