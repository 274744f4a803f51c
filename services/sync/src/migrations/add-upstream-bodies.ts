import type { Migration } from '@timetable/db';

/**
 * What the snapshot was built from, so a re-sync can skip what did not change: the hash of each upstream
 * answer that was read and committed (with, for a group feed, what else its events depended on), and per run
 * the fingerprint of all answers (set only when the run committed everything it read).
 */
export const addUpstreamBodies: Migration = {
  async up(knex) {
    await knex.schema.createTable('upstream_bodies', (table) => {
      // A list request (`json?m=getogs&pu=53`) or `feed:<pgid>`.
      table.text('source').primary();
      table.text('body_hash').notNullable();
      // Feeds only: the program, the group's inputs and the names it resolved (FeedDerivation).
      table.jsonb('derivation');
      table.timestamp('updated_at', { useTz: true }).notNullable();
    });
    await knex.schema.alterTable('sync_runs', (table) => {
      table.text('upstream_fingerprint');
    });
  },
  async down(knex) {
    await knex.schema.alterTable('sync_runs', (table) => {
      table.dropColumn('upstream_fingerprint');
    });
    await knex.schema.dropTable('upstream_bodies');
  },
};
