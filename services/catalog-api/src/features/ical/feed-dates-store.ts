import type { Knex } from '@timetable/db';

/** What one rendering of a feed tells its date. */
export interface FeedDateInput {
  /** A hash of the feed's cache key. */
  keyHash: string;
  /** A hash of the rendered feed. */
  fingerprint: string;
  /** The newest change of any event in the feed, no later than this second; null for an empty feed. */
  newestChange: Date | null;
  /** The second this rendering happens in, as an instant (milliseconds dropped). */
  thisSecond: Date;
  servedAt: Date;
}

// One statement, so renderings of one feed on several replicas take turns on its row. A new row takes the
// newest change unless a removed row may have been dated later (the watermark), else this second. An existing
// row keeps its date while the content is the same; new content takes the newest change where that is later
// than the row's date, and otherwise this second, or one second past the row's date when that is later still
// (then the date lies ahead, and the caller holds it back until it has passed).
const DATE_SQL = `
  with input as (
    select ?::text as key_hash, ?::text as fingerprint, ?::timestamptz as newest_change, ?::timestamptz as this_second, ?::timestamptz as served_at
  )
  insert into feed_dates as d (key_hash, fingerprint, last_modified, served_at)
  select key_hash, fingerprint,
    case when newest_change > coalesce((select dated_up_to from feed_dates_pruned), '-infinity') then newest_change else this_second end,
    served_at
  from input
  on conflict (key_hash) do update set
    last_modified = case
      when d.fingerprint = excluded.fingerprint then d.last_modified
      when (select newest_change from input) > d.last_modified then (select newest_change from input)
      else greatest((select this_second from input), d.last_modified + interval '1 second')
    end,
    fingerprint = excluded.fingerprint,
    served_at = excluded.served_at
  returning last_modified`;

const PRUNE_SQL = `
  with removed as (delete from feed_dates where served_at < ? returning last_modified),
  watermark as (
    insert into feed_dates_pruned (id, dated_up_to)
    select true, max(last_modified) from removed having count(*) > 0
    on conflict (id) do update set dated_up_to = greatest(feed_dates_pruned.dated_up_to, excluded.dated_up_to)
  )
  select count(*)::int as removed from removed`;

export interface FeedDatesStoreDeps {
  /** On the catalog schema. */
  knex: Knex;
}

/** The dates of the feeds' contents in PostgreSQL, shared by every replica and kept across restarts. */
export class FeedDatesStore {
  private readonly knex: Knex;

  constructor(deps: FeedDatesStoreDeps) {
    this.knex = deps.knex;
  }

  /** Records this rendering and answers the date of its content (possibly a second ahead of it). */
  async date(input: FeedDateInput): Promise<Date> {
    const { rows } = await this.knex.raw<{ rows: { last_modified: Date }[] }>(DATE_SQL, [
      input.keyHash,
      input.fingerprint,
      input.newestChange,
      input.thisSecond,
      input.servedAt,
    ]);
    const [row] = rows;
    if (!row) throw new Error('feed date not recorded');
    return row.last_modified;
  }

  /** Forgets the feeds not rendered since `servedBefore`, raising the watermark to the latest date forgotten. */
  prune(servedBefore: Date): Promise<number> {
    return this.knex.transaction(async (trx) => {
      // Renderings wait meanwhile: none may date a feed whose row is going against the watermark as it was.
      await trx.raw('lock table feed_dates in share row exclusive mode');
      const { rows } = await trx.raw<{ rows: { removed: number }[] }>(PRUNE_SQL, [servedBefore]);
      return rows[0]?.removed ?? 0;
    });
  }
}
