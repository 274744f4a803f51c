import type { Migration } from '@timetable/db';

/** Accounts hold only the SHA-256 of their key and its last 4 characters; the key itself is never stored. */
export const createDevelopers: Migration = {
  async up(knex) {
    await knex.schema.createTable('developers', (table) => {
      table.uuid('id').primary();
      table.text('email').notNullable().unique();
      table.text('name');
      table.text('key_hash').notNullable().unique();
      table.text('api_key_hint').notNullable();
      table.boolean('is_active').notNullable().defaultTo(true);
      table.timestamp('created_at', { useTz: true }).notNullable();
      table.timestamp('updated_at', { useTz: true }).notNullable();
    });
  },
  async down(knex) {
    await knex.schema.dropTable('developers');
  },
};
