import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createKnex, migrateToLatest, type Knex, type MigrationSet } from '@timetable/db';
import type { TestInfrastructure } from './test-infrastructure.js';

export function testInfrastructure(): TestInfrastructure {
  return inject('infra');
}

export interface TestDatabase {
  connectionString: string;
  drop(): Promise<void>;
}

/** A fresh database per test file, so files run in parallel without seeing each other's rows. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = testInfrastructure().databaseUrl;
  const name = `tt_test_${randomBytes(6).toString('hex')}`;
  await withAdmin(adminUrl, (client) => client.query(`create database ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    connectionString: url.toString(),
    drop: () => withAdmin(adminUrl, (client) => client.query(`drop database if exists ${name} with (force)`)).then(() => undefined),
  };
}

/** A knex on a fresh database with the service's migrations applied. */
export async function createMigratedKnex(schema: string, migrations: MigrationSet): Promise<{ knex: Knex; database: TestDatabase; close(): Promise<void> }> {
  const database = await createTestDatabase();
  const knex = createKnex({ connectionString: database.connectionString, schema, poolMax: 5 });
  await migrateToLatest(knex, schema, migrations);
  return {
    knex,
    database,
    close: async () => {
      await knex.destroy();
      await database.drop();
    },
  };
}

async function withAdmin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
