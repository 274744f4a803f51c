/** A fresh database for one scale of the sync bench, opened as the sync service opens its store, dropped after. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Knex } from '@timetable/db';
import type { Logger } from '@timetable/observability';
import { openServiceStore } from '@timetable/service-kit';
import { SYNC_CONNECTIONS_KEPT, SYNC_SCHEMA, syncMigrations } from '@timetable/sync';

const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function withAdmin(work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

export async function withSyncDatabase<T>(logger: Logger, work: (knex: Knex) => Promise<T>): Promise<T> {
  const database = `timetable_bench_${randomBytes(4).toString('hex')}`;
  await withAdmin((client) => client.query(`create database ${database}`));
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  let store: Knex | undefined;
  try {
    // Migrated, its kept connections open.
    store = await openServiceStore({ connectionString: url.toString(), schema: SYNC_SCHEMA, migrations: syncMigrations, logger, poolMax: 5, connectionsKept: SYNC_CONNECTIONS_KEPT });
    return await work(store);
  } finally {
    await store?.destroy();
    await withAdmin((client) => client.query(`drop database if exists ${database} with (force)`));
  }
}
