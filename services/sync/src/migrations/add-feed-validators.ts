import type { Migration } from '@timetable/db';

/**
 * The ETag and Last-Modified a group feed's answer carried, so the next run can ask conditionally and take a
 * 304 for the feed it has. StarPlan sends neither; an upstream that does saves the whole download.
 */
export const addFeedValidators: Migration = {
  async up(knex) {
    await knex.schema.alterTable('upstream_bodies', (table) => {
      table.text('etag');
      table.text('last_modified');
    });
  },
  async down(knex) {
    await knex.schema.alterTable('upstream_bodies', (table) => {
      table.dropColumn('etag');
      table.dropColumn('last_modified');
    });
  },
};
