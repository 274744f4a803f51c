/**
 * The embedded mode opens the sync's kept store connections when it starts, before the first run: every one
 * of them predates it, where a pool that opened connections as work asked would have two at most from before
 * it (the migration's, and one for the run's lock while the outbox relay polled).
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SYNC_CONNECTIONS_KEPT } from '@timetable/sync';
import { startEmbeddedOnTestDatabase, type EmbeddedOnTestDatabase } from './support/embedded-on-test-database.js';

let embedded: EmbeddedOnTestDatabase;

beforeAll(async () => {
  embedded = await startEmbeddedOnTestDatabase({ SYNC_INTERVAL_SECONDS: '86400' });
  await embedded.system.firstSyncPublished();
});
afterAll(async () => {
  await embedded?.stop();
});

it("opens the sync's kept connections at start and keeps them through its first run", async () => {
  const client = new pg.Client({ connectionString: embedded.database.connectionString });
  await client.connect();
  try {
    // backend_start is PostgreSQL's clock, started_at the sync's: both this machine's.
    const { rows } = await client.query<{ predating: number }>(
      `select count(*) filter (where backend_start < (select min(started_at) from sync.sync_runs))::int as predating
         from pg_stat_activity where datname = current_database() and application_name = 'timetable-sync'`,
    );
    expect(rows[0]!.predating).toBeGreaterThanOrEqual(SYNC_CONNECTIONS_KEPT);
  } finally {
    await client.end();
  }
});
