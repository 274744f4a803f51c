import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKnex, type Knex } from '@timetable/db';
import { failureOf } from '@timetable/events/testing';
import { createTestDatabase, type TestDatabase } from '@timetable/testing';

/** The classification of errors as a real PostgreSQL server, pg and knex raise them. */
let database: TestDatabase;
let knex: Knex;

beforeAll(async () => {
  database = await createTestDatabase();
  knex = createKnex({ connectionString: database.connectionString, schema: 'public', poolMax: 3 });
  await knex.raw('create table rooms (id int primary key, capacity int not null check (capacity >= 0), opened date)');
});

afterAll(async () => {
  await knex?.destroy();
  await database?.drop();
});

async function errorOf(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected the statement to fail');
}

describe('a refused value or constraint is data', () => {
  it.each([
    ['an integer no column holds', () => knex('rooms').insert({ id: 1, capacity: 3_000_000_000 }), 'sqlstate 22003'],
    ['a date that does not exist', () => knex('rooms').insert({ id: 2, capacity: 1, opened: '2027-02-30' }), 'sqlstate 22008'],
    ['a NUL in text', () => knex.raw('select ?::text', ['a\u0000b']), 'sqlstate 22021'],
    ['a failed check', () => knex('rooms').insert({ id: 3, capacity: -1 }), 'sqlstate 23514'],
    ['a duplicate key', () => knex('rooms').insert([{ id: 4, capacity: 1 }, { id: 4, capacity: 2 }]), 'sqlstate 23505'],
  ])('%s', async (_name, statement, reason) => {
    expect(failureOf(await errorOf(statement))).toEqual({ kind: 'data', reason });
  });
});

describe('a server or connection that fails is infrastructure', () => {
  it('a statement timeout (57014)', async () => {
    const error = await errorOf(() => knex.transaction(async (trx) => {
      await trx.raw("set local statement_timeout = '50ms'");
      await trx.raw('select pg_sleep(2)');
    }));
    expect(failureOf(error)).toEqual({ kind: 'infrastructure', reason: 'sqlstate 57014' });
  });

  it('a session an administrator ended in the middle of a statement (57P01)', async () => {
    const single = createKnex({ connectionString: database.connectionString, schema: 'public', poolMax: 1 });
    try {
      const { rows } = await single.raw<{ rows: { pid: number }[] }>('select pg_backend_pid() as pid');
      const sleeping = errorOf(() => single.raw('select pg_sleep(5)'));
      await new Promise((resolve) => setTimeout(resolve, 200));
      await knex.raw('select pg_terminate_backend(?)', [rows[0]!.pid]);
      expect(failureOf(await sleeping)).toEqual({ kind: 'infrastructure', reason: 'sqlstate 57P01' });
    } finally {
      await single.destroy();
    }
  });

  it('a refused connection (ECONNREFUSED)', async () => {
    const away = createKnex({ connectionString: 'postgres://postgres@127.0.0.1:1/nowhere', schema: 'public', poolMax: 1 });
    try {
      expect(failureOf(await errorOf(() => away.raw('select 1')))).toEqual({ kind: 'infrastructure', reason: 'ECONNREFUSED' });
    } finally {
      await away.destroy();
    }
  });
});
