import type { Migration } from '@timetable/db';

/**
 * What fences a run's commit (runs/sync-runner.ts): the snapshot's version, advanced by every run that writes
 * changes and named by every run's record (the last committed run is the one of the highest version, not of the
 * latest clock), and the run each staged row belongs to. The advisory lock keeps runs apart only while its session
 * lives; should that session end during a run (an idle timeout of the server or of a proxy, an operator),
 * another replica may run beside it, and these keep the two from both committing the same changes or reading
 * each other's staged data. Staged rows are a run's scratch data, so the table is emptied here.
 *
 * In a rolling upgrade a replica of the code before this one fails every run that builds changes once this has
 * run (its staged rows name no run), so such a run commits nothing; runs that find the upstream unchanged still
 * succeed. Replace the old replicas promptly (docs/sync.md, "The run").
 */
export const addRunFence: Migration = {
  async up(knex) {
    // Emptying and altering staged_entities waits for an exclusive lock, and a run writing to it would hold it
    // off: give up instead, and the service's next start tries again.
    await knex.raw("set local lock_timeout = '10s'");
    await knex.raw(`create table snapshot_version (
      singleton boolean primary key default true check (singleton),
      version bigint not null
    )`);
    await knex.raw('insert into snapshot_version (version) values (0)');
    // Runs recorded before have none, and count as older than any that has.
    await knex.raw('alter table sync_runs add column snapshot_version bigint');
    await knex.raw(`create index sync_runs_last_committed on sync_runs (snapshot_version desc nulls last, finished_at desc)
      where status in ('succeeded', 'partial')`);
    await knex.raw('truncate staged_entities');
    await knex.raw('alter table staged_entities add column sync_run_id uuid not null');
    await knex.raw('alter table staged_entities drop constraint staged_entities_pkey');
    await knex.raw('alter table staged_entities add primary key (sync_run_id, entity_type, entity_id)');
  },
  async down(knex) {
    await knex.raw('truncate staged_entities');
    await knex.raw('alter table staged_entities drop constraint staged_entities_pkey');
    await knex.raw('alter table staged_entities drop column sync_run_id');
    await knex.raw('alter table staged_entities add primary key (entity_type, entity_id)');
    await knex.raw('drop index sync_runs_last_committed');
    await knex.raw('alter table sync_runs drop column snapshot_version');
    await knex.schema.dropTable('snapshot_version');
  },
};
