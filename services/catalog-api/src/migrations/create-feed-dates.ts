import type { Migration } from '@timetable/db';

/**
 * The Last-Modified of each feed (features/ical/feed-dates.ts): the date each feed's current content got and
 * a fingerprint of that content, so the date moves on exactly when the content changes. `feed_dates_pruned`
 * holds the latest date of any row removed for disuse: a feed seen again cannot be dated at or before it.
 */
export const createFeedDates: Migration = {
  async up(knex) {
    await knex.schema.createTable('feed_dates', (table) => {
      // A hash of the feed's key: a personal feed's key lists up to 100 ids, too long for an index entry.
      table.text('key_hash').primary();
      table.text('fingerprint').notNullable();
      table.timestamp('last_modified', { useTz: true }).notNullable();
      table.timestamp('served_at', { useTz: true }).notNullable().index();
    });
    await knex.schema.createTable('feed_dates_pruned', (table) => {
      table.boolean('id').primary().defaultTo(true);
      table.timestamp('dated_up_to', { useTz: true }).notNullable();
    });
    await knex.raw('alter table feed_dates_pruned add constraint feed_dates_pruned_one_row check (id)');
  },
  async down(knex) {
    await knex.schema.dropTable('feed_dates_pruned');
    await knex.schema.dropTable('feed_dates');
  },
};
