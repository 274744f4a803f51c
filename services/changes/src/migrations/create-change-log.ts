import type { Migration } from '@timetable/db';

/** The change log: one row per change event, keyed by the id sync assigned (so replays insert nothing). */
export const createChangeLog: Migration = {
  async up(knex) {
    await knex.schema.createTable('changes', (table) => {
      table.uuid('id').primary();
      table.text('entity_type').notNullable();
      table.text('entity_id').notNullable();
      table.text('action').notNullable();
      table.jsonb('previous_data');
      table.jsonb('new_data');
      table.specificType('changed_fields', 'text[]').notNullable().defaultTo('{}');
      table.uuid('program_id');
      table.uuid('semester_id');
      table.uuid('course_id');
      table.uuid('room_id');
      table.uuid('instructor_id');
      table.uuid('sync_run_id').notNullable();
      table.timestamp('created_at', { useTz: true }).notNullable();
    });
    // Serves the newest-first order, since, and the entityType/action filters: those match by case-insensitive
    // contains over a handful of distinct values, so a btree on them could not be used; scanning this index and
    // stopping at the limit can.
    await knex.raw('create index changes_created_at_idx on changes (created_at desc, id desc)');
    await knex.raw('create index changes_program_id_idx on changes (program_id)');
    await knex.raw('create index changes_semester_id_idx on changes (semester_id)');
    await knex.raw('create index changes_course_id_idx on changes (course_id)');
  },
  async down(knex) {
    await knex.schema.dropTable('changes');
  },
};
