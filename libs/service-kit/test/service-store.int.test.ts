/**
 * A store with kept connections opens them once it is migrated; a start that PostgreSQL refuses them fails as
 * one that cannot migrate does, and holds no connection afterwards.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MigrationSet } from '@timetable/db';
import { captureLogger, createTestDatabase, testInfrastructure, type TestDatabase } from '@timetable/testing';
import { openServiceStore } from '../src/service-store.js';

const migrations: MigrationSet = {
  '001_things': { up: (knex) => knex.schema.createTable('things', (table) => table.increments('id')), down: (knex) => knex.schema.dropTable('things') },
};
const { logger } = captureLogger('fatal');
let database: TestDatabase;
// A role PostgreSQL lets open two connections at most.
const role = `tt_limited_${randomBytes(4).toString('hex')}`;

async function asAdmin<T>(work: (client: pg.Client) => Promise<T>, connectionString = database.connectionString): Promise<T> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const openConnectionsOf = (user: string) =>
  asAdmin(async (client) => (await client.query<{ open: number }>('select count(*)::int as open from pg_stat_activity where usename = $1', [user])).rows[0]!.open);

beforeAll(async () => {
  database = await createTestDatabase();
  await asAdmin((client) => client.query(`create role ${role} login connection limit 2; grant all on database ${new URL(database.connectionString).pathname.slice(1)} to ${role}`));
});
afterAll(async () => {
  // The database first: the role's grant on it and what it created there go with it, so the role can go too.
  await database?.drop();
  await asAdmin((client) => client.query(`drop role if exists ${role}`), testInfrastructure().databaseUrl);
});

describe('a service store with kept connections', () => {
  it('has them open once it is open', async () => {
    const knex = await openServiceStore({ connectionString: database.connectionString, schema: 'kept', migrations, logger, poolMax: 5, connectionsKept: 3 });
    try {
      const pool = (knex.client as { pool: { numFree(): number; numUsed(): number } }).pool;
      expect(pool.numFree() + pool.numUsed()).toBe(3);
    } finally {
      await knex.destroy();
    }
  });

  it('fails to open when PostgreSQL refuses them, and holds no connection afterwards', async () => {
    const url = new URL(database.connectionString);
    url.username = role;
    const opening = openServiceStore({ connectionString: url.toString(), schema: role, migrations, logger, poolMax: 5, connectionsKept: 4 });
    await expect(opening).rejects.toThrow(/too many connections/);
    // A closed connection leaves pg_stat_activity as its backend exits: allow it a moment.
    let open = await openConnectionsOf(role);
    for (let tries = 0; open > 0 && tries < 20; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      open = await openConnectionsOf(role);
    }
    expect(open).toBe(0);
  });
});
