import type { Knex } from '@timetable/db';
import type { Row } from './entity-rows.js';

// Postgres accepts at most 65535 bind parameters per statement.
const ENTITY_CHUNK = 500;
const OCCURRENCE_CHUNK = 2000;

function chunks<T>(items: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let index = 0; index < items.length; index += size) result.push(items.slice(index, index + size));
  return result;
}

export interface ProjectionWriterDeps {
  /** The transaction of the batch. */
  trx: Knex.Transaction;
}

/** The writes of one projected batch, all inside one transaction. */
export class ProjectionWriter {
  private readonly trx: Knex.Transaction;

  constructor(deps: ProjectionWriterDeps) {
    this.trx = deps.trx;
  }

  /**
   * Inserts or updates rows by id and returns the ids actually written: a row whose content hash is
   * unchanged is left alone, which makes replays free. created_at is never overwritten; events count
   * their changes in `sequence`.
   */
  async upsert(table: string, rows: readonly Row[]): Promise<string[]> {
    const first = rows[0];
    if (!first) return [];
    const merge: Record<string, Knex.Raw> = {};
    for (const column of Object.keys(first)) {
      if (column === 'id' || column === 'created_at' || column === 'sequence') continue;
      merge[column] = this.trx.raw('excluded.??', [column]);
    }
    if ('sequence' in first) merge.sequence = this.trx.raw('??.sequence + 1', [table]);
    const written: string[] = [];
    for (const chunk of chunks(rows, ENTITY_CHUNK)) {
      const result: { id: string }[] = await this.trx(table)
        .insert(chunk)
        .onConflict('id')
        .merge(merge)
        .whereRaw('??.content_hash is distinct from excluded.content_hash', [table])
        .returning('id');
      written.push(...result.map((row) => row.id));
    }
    return written;
  }

  /** Deletes by id (occurrences and links of events go with them) and returns how many existed. */
  async remove(table: string, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return this.trx(table).whereRaw('id = any(?)', [ids]).delete();
  }

  /** Replaces the occurrences and room/instructor links of the given events. */
  async replaceOccurrences(eventIds: string[], occurrences: readonly Row[], rooms: readonly Row[], instructors: readonly Row[]): Promise<void> {
    if (eventIds.length === 0) return;
    for (const table of ['occurrences', 'event_rooms', 'event_instructors']) {
      // One array parameter, whatever the batch size.
      await this.trx(table).whereRaw('event_id = any(?)', [eventIds]).delete();
    }
    for (const chunk of chunks(occurrences, OCCURRENCE_CHUNK)) {
      await this.trx('occurrences').insert(chunk).onConflict(['event_id', 'start_time']).ignore();
    }
    for (const chunk of chunks(rooms, OCCURRENCE_CHUNK)) await this.trx('event_rooms').insert(chunk);
    for (const chunk of chunks(instructors, OCCURRENCE_CHUNK)) await this.trx('event_instructors').insert(chunk);
  }
}

export interface ProjectionStoreDeps {
  /** On the catalog schema. */
  knex: Knex;
}

export class ProjectionStore {
  private readonly knex: Knex;

  constructor(deps: ProjectionStoreDeps) {
    this.knex = deps.knex;
  }

  transaction<T>(work: (writer: ProjectionWriter) => Promise<T>): Promise<T> {
    return this.knex.transaction((trx) => work(new ProjectionWriter({ trx })));
  }
}
