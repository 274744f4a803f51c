import type { Migration } from '@timetable/db';

/**
 * Where a run puts the data of the entities it built that differ from the snapshot, until its transaction
 * reads them back in chunks: at scale the run then holds keys and hashes, not every entity's data.
 * Unlogged: it only ever holds one run's working set, which a crash may lose (the next run starts afresh).
 */
export const addStagedEntities: Migration = {
  async up(knex) {
    await knex.raw(`create unlogged table staged_entities (
      entity_type text not null,
      entity_id text not null,
      data jsonb not null,
      primary key (entity_type, entity_id)
    )`);
  },
  async down(knex) {
    await knex.schema.dropTable('staged_entities');
  },
};
