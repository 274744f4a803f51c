/**
 * The hashes of the upstream answers the snapshot was built from (table `upstream_bodies`): list answers by
 * request, group feeds by group with what their events were built from. Written only inside a run's
 * transaction, so a run that does not commit leaves them as they were.
 */
import type { Knex } from '@timetable/db';
import type { FeedDerivation, FeedRecord } from './next-snapshot.js';

interface BodyRow {
  source: string;
  body_hash: string;
  derivation: FeedDerivation | null;
  etag: string | null;
  last_modified: string | null;
}

const FEED_PREFIX = 'feed:';
const WRITE_CHUNK = 500;

export interface StoredBodies {
  /** List request -> body hash. */
  lists: Map<string, string>;
  /** pgid -> the feed record. */
  feeds: Map<number, FeedRecord>;
}

export interface UpstreamBodyStoreDeps {
  /** On the `sync` schema. */
  knex: Knex;
}

export class UpstreamBodyStore {
  private readonly knex: Knex;

  constructor(deps: UpstreamBodyStoreDeps) {
    this.knex = deps.knex;
  }

  async load(): Promise<StoredBodies> {
    const rows: BodyRow[] = await this.knex('upstream_bodies').select('source', 'body_hash', 'derivation', 'etag', 'last_modified');
    const stored: StoredBodies = { lists: new Map(), feeds: new Map() };
    for (const row of rows) {
      if (!row.source.startsWith(FEED_PREFIX)) stored.lists.set(row.source, row.body_hash);
      else if (row.derivation) stored.feeds.set(Number(row.source.slice(FEED_PREFIX.length)), { bodyHash: row.body_hash, derivation: row.derivation, ...validatorsOf(row) });
    }
    return stored;
  }

  /**
   * Inside the run's transaction. `lists` are the list answers read; with `replaceLists` (a run without
   * failures) list rows not read this time are removed.
   */
  async apply(
    trx: Knex.Transaction,
    changes: { lists: ReadonlyMap<string, string>; replaceLists: boolean; feedUpserts: ReadonlyMap<number, FeedRecord>; feedDeletes: readonly number[] },
    now: Date,
  ): Promise<void> {
    const rows = [
      ...[...changes.lists].map(([source, bodyHash]) => ({ source, body_hash: bodyHash, derivation: null, etag: null, last_modified: null, updated_at: now })),
      ...[...changes.feedUpserts].map(([pgid, record]) => ({
        source: `${FEED_PREFIX}${pgid}`,
        body_hash: record.bodyHash,
        derivation: JSON.stringify(record.derivation),
        etag: record.validators?.etag ?? null,
        last_modified: record.validators?.lastModified ?? null,
        updated_at: now,
      })),
    ];
    for (let index = 0; index < rows.length; index += WRITE_CHUNK) {
      await trx('upstream_bodies').insert(rows.slice(index, index + WRITE_CHUNK)).onConflict('source').merge();
    }
    const deletes = changes.feedDeletes.map((pgid) => `${FEED_PREFIX}${pgid}`);
    for (let index = 0; index < deletes.length; index += WRITE_CHUNK) {
      await trx('upstream_bodies').whereIn('source', deletes.slice(index, index + WRITE_CHUNK)).delete();
    }
    if (changes.replaceLists) {
      const stale = (await trx('upstream_bodies').whereNot('source', 'like', `${FEED_PREFIX}%`).pluck('source')) as string[];
      const gone = stale.filter((source) => !changes.lists.has(source));
      for (let index = 0; index < gone.length; index += WRITE_CHUNK) {
        await trx('upstream_bodies').whereIn('source', gone.slice(index, index + WRITE_CHUNK)).delete();
      }
    }
  }
}

function validatorsOf(row: BodyRow): Pick<FeedRecord, 'validators'> {
  if (row.etag === null && row.last_modified === null) return {};
  return { validators: { ...(row.etag !== null ? { etag: row.etag } : {}), ...(row.last_modified !== null ? { lastModified: row.last_modified } : {}) } };
}
