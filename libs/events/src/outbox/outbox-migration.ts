import type { Migration } from '@timetable/db';

/** Services that publish include this in their migrations; rows are written in the same transaction as state. */
export const createOutboxTable: Migration = {
  async up(knex) {
    await knex.schema.createTable('outbox', (table) => {
      table.bigIncrements('id').primary();
      table.text('topic').notNullable();
      table.text('message_key').notNullable();
      table.jsonb('value');
      table.jsonb('headers').notNullable().defaultTo('{}');
      table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
  },
  async down(knex) {
    await knex.schema.dropTable('outbox');
  },
};
