import type { Migration } from '@timetable/db';

/**
 * The change log's append order, for `GET /changes?after=`: a position per change, taken from an identity
 * column. Positions grow in commit order only because every append holds the table's append lock while it
 * inserts (ChangeStore.append); a sequence alone hands out numbers at insert time, and a transaction that
 * commits later may hold a lower one.
 */
export const addChangeLogPosition: Migration = {
  async up(knex) {
    await knex.raw('alter table changes add column position bigint');
    // Changes logged before positions existed keep the log's own order, oldest first.
    await knex.raw(`update changes set position = ordered.position
      from (select id, row_number() over (order by created_at, id) as position from changes) as ordered
      where changes.id = ordered.id`);
    await knex.raw('alter table changes alter column position set not null');
    // Always generated: no writer can choose a position, so none can break the order. No cache: a session
    // holding cached numbers would take them after another session's higher ones.
    await knex.raw('alter table changes alter column position add generated always as identity (cache 1)');
    await knex.raw(`select setval(pg_get_serial_sequence('changes', 'position'), coalesce(max(position), 0) + 1, false) from changes`);
    await knex.raw('create unique index changes_position_idx on changes (position)');
  },
  async down(knex) {
    await knex.raw('alter table changes drop column position');
  },
};
