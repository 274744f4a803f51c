import type { Migration } from '@timetable/db';

/** The retention job deletes usage events by age alone, across developers. */
export const indexUsageByTime: Migration = {
  async up(knex) {
    await knex.raw('create index usage_events_occurred_idx on usage_events (occurred_at)');
  },
  async down(knex) {
    await knex.raw('drop index usage_events_occurred_idx');
  },
};
