import type { Knex, Migration } from '@timetable/db';
import type { DeadLetterStore, PutAsideRecord } from '../in-process/dead-letter-store.js';

const TABLE = 'dead_letters';

/**
 * The embedded mode's records that a consumer could not apply, in the outbox's store: what the record was
 * (topic, key, value, headers, as the relay published it), which group refused it, why and how often it
 * was tried. Moving a row back into the outbox replays it.
 */
export const createDeadLetterTable: Migration = {
  async up(knex) {
    await knex.schema.createTable(TABLE, (table) => {
      table.bigIncrements('id').primary();
      table.text('group_id').notNullable();
      table.text('topic').notNullable();
      table.text('message_key').notNullable();
      // json, not jsonb: it keeps any value the bus carried (jsonb refuses \u0000, which is what a consumer may have choked on).
      table.json('value');
      table.jsonb('headers').notNullable().defaultTo('{}');
      table.text('error').notNullable();
      table.integer('attempts').notNullable();
      table.timestamp('dead_lettered_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
  },
  async down(knex) {
    await knex.schema.dropTable(TABLE);
  },
};

/** Writes what the in-process bus put aside to the dead_letters table. */
export class DeadLetterTable implements DeadLetterStore {
  constructor(private readonly knex: Knex) {}

  async putAside(records: PutAsideRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.knex(TABLE).insert(
      records.map(({ group, event, error, attempts }) => ({
        group_id: group,
        topic: event.topic,
        message_key: event.key,
        // Serialised here: pg would write a top-level array as a PostgreSQL array, not as JSON.
        value: event.value === null ? null : JSON.stringify(event.value),
        headers: JSON.stringify(event.headers),
        error,
        attempts,
      })),
    );
  }
}
