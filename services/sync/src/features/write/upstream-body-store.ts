/**
 * The hashes of the upstream answers the snapshot was built from (table `upstream_bodies`): list answers by
 * request, group feeds by group with what their events were built from. Written only inside a run's
 * transaction, so a run that does not commit leaves them as they were.
 */
import type { Knex } from '@timetable/db';
import type { KnownFeed } from '../read/starplan-client.js';
import type { FeedDerivation, FeedRecord } from '../diff/feed-records.js';

interface HashRow {
  source: string;
  body_hash: string;
  etag: string | null;
  last_modified: string | null;
}

type RecordRow = HashRow & { derivation: FeedDerivation | null };

const FEED_PREFIX = 'feed:';
const WRITE_CHUNK = 500;

export interface StoredHashes {
  /** List request -> body hash. */
  lists: Map<string, string>;
  /** pgid -> the feed's body hash and validators, without what its events were built from. */
  feeds: Map<number, KnownFeed>;
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

  /**
   * What a run compares its answers with. The derivations stay in the table: a run that finds every answer
   * unchanged never needs them, and they are most of each feed row's bytes.
   */
  async loadHashes(): Promise<StoredHashes> {
    const rows: HashRow[] = await this.knex('upstream_bodies').select('source', 'body_hash', 'etag', 'last_modified');
    const stored: StoredHashes = { lists: new Map(), feeds: new Map() };
    for (const row of rows) {
      if (!row.source.startsWith(FEED_PREFIX)) stored.lists.set(row.source, row.body_hash);
      else stored.feeds.set(pgidOf(row), { bodyHash: row.body_hash, ...validatorsOf(row) });
    }
    return stored;
  }

  /**
   * pgid -> the feed record, with what its events were built from: read once a run has a feed to build. A feed
   * row always has a derivation (apply writes one); were one missing, its feed would be read again, not reused.
   */
  async loadFeedRecords(): Promise<Map<number, FeedRecord>> {
    const rows: RecordRow[] = await this.knex('upstream_bodies')
      .select('source', 'body_hash', 'derivation', 'etag', 'last_modified')
      .where('source', 'like', `${FEED_PREFIX}%`)
      .whereNotNull('derivation');
    return new Map(rows.map((row) => [pgidOf(row), { bodyHash: row.body_hash, derivation: row.derivation!, ...validatorsOf(row) }]));
  }

  /**
   * Inside the run's transaction. `lists` are the list answers to write (those that differ from the stored
   * ones); `listsRead`, given by a run without failures, is every list request it read, and list rows of
   * other requests are removed. A run with failures did not read every list, so it removes none.
   */
  async apply(
    trx: Knex.Transaction,
    changes: {
      lists: ReadonlyMap<string, string>;
      listsRead?: ReadonlySet<string>;
      feedUpserts: ReadonlyMap<number, FeedRecord>;
      feedDeletes: readonly number[];
    },
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
    const { listsRead } = changes;
    if (listsRead !== undefined) {
      const stored = (await trx('upstream_bodies').whereNot('source', 'like', `${FEED_PREFIX}%`).pluck('source')) as string[];
      const gone = stored.filter((source) => !listsRead.has(source));
      for (let index = 0; index < gone.length; index += WRITE_CHUNK) {
        await trx('upstream_bodies').whereIn('source', gone.slice(index, index + WRITE_CHUNK)).delete();
      }
    }
  }
}

function pgidOf(row: HashRow): number {
  return Number(row.source.slice(FEED_PREFIX.length));
}

function validatorsOf(row: HashRow): Pick<FeedRecord, 'validators'> {
  if (row.etag === null && row.last_modified === null) return {};
  return { validators: { ...(row.etag !== null ? { etag: row.etag } : {}), ...(row.last_modified !== null ? { lastModified: row.last_modified } : {}) } };
}
