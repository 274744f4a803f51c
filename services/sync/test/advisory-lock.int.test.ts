/**
 * The sync's run lock over a connection that stops answering: kept open for minutes between runs, a
 * connection can lose its peer without a word. The lock's statements then give up after their timeout, and the
 * session they ran on is ended, so the lock is never left held by a connection nobody uses.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createKnex, type Knex } from '@timetable/db';
import { captureLogger, createTestDatabase, TcpProxy, type TestDatabase } from '@timetable/testing';
import { withAdvisoryLock } from '../src/features/runs/advisory-lock.js';

const LOCK = 'advisory-lock-test';
const TIMEOUT_MS = 1000;

let database: TestDatabase;
let proxy: TcpProxy;
/** The service's pool, its connections through the proxy. */
let throughProxy: Knex;
/** Another replica's, straight to PostgreSQL. */
let direct: Knex;
const { logger, lines } = captureLogger('warn');

beforeAll(async () => {
  database = await createTestDatabase();
  const { hostname, port } = new URL(database.connectionString);
  proxy = await TcpProxy.start(hostname, Number(port));
  throughProxy = createKnex({ connectionString: proxy.urlFor(database.connectionString), schema: 'public', connectionsKept: 1, poolMax: 2, logger });
  direct = createKnex({ connectionString: database.connectionString, schema: 'public', poolMax: 1, logger });
});
afterEach(() => proxy.resume());
afterAll(async () => {
  await throughProxy?.destroy();
  await direct?.destroy();
  await proxy?.close();
  await database?.drop();
});

const lockAndRun = <T>(knex: Knex, work: () => Promise<T>) => withAdvisoryLock(knex, LOCK, work, { logger, statementTimeoutMs: TIMEOUT_MS });
/** Whether another replica can take the lock now (taken and released again at once). */
const freeForOthers = async () => (await lockAndRun(direct, async () => true)) === true;
/** The session that holds the lock now, seen from another: advisory locks are per database, and this one is the file's own. */
const holder = async () => {
  const { rows } = await direct.raw<{ rows: { pid: number }[] }>(
    "select pid from pg_locks where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())",
  );
  return rows.map((row) => row.pid);
};
const sessionAlive = async (pid: number) => (await direct.raw<{ rows: unknown[] }>('select 1 from pg_stat_activity where pid = ?', [pid])).rows.length > 0;
const unlockWarnings = () => lines().filter((line) => line.msg === 'the advisory lock could not be released; ending its session' && line.lock === LOCK).length;

describe('the advisory lock on a connection that stopped answering', () => {
  it('fails the try-lock after its timeout, and the session it was sent on never gets to hold the lock', async () => {
    await lockAndRun(throughProxy, async () => 'warm'); // the kept connection exists before the silence
    proxy.stall();
    let ran = false;
    await expect(lockAndRun(throughProxy, async () => (ran = true))).rejects.toThrow(`could not take the advisory lock "${LOCK}": Query read timeout`);
    expect(ran).toBe(false);

    // The try-lock is still on its way to the server; when the network comes back, it must arrive on a
    // session that is closing, not on one the pool keeps holding the lock for good.
    proxy.resume();
    await expect.poll(freeForOthers, { timeout: 5000, interval: 100 }).toBe(true);
    expect(await freeForOthers()).toBe(true);
    expect(await lockAndRun(throughProxy, async () => 'again')).toBe('again');
  });

  it('gives the work its outcome when the unlock goes unanswered, and ends the session that held the lock', async () => {
    const warningsBefore = unlockWarnings();
    let lockSession: number | undefined;
    const outcome = await lockAndRun(throughProxy, async () => {
      [lockSession] = await holder();
      proxy.stall();
      return 'committed';
    });
    expect(outcome).toBe('committed');
    expect(unlockWarnings()).toBe(warningsBefore + 1);

    // Once the network is back the late unlock would free the lock on its own; the session must end as well,
    // so that a connection in an unknown state is not kept.
    proxy.resume();
    expect(lockSession).toBeTypeOf('number');
    await expect.poll(() => sessionAlive(lockSession!), { timeout: 5000, interval: 100 }).toBe(false);
    expect(await freeForOthers()).toBe(true);
    expect(await lockAndRun(throughProxy, async () => 'again')).toBe('again');
  });

  it("keeps the work's own failure when the unlock fails after it", async () => {
    const warningsBefore = unlockWarnings();
    const failing = lockAndRun(throughProxy, async () => {
      proxy.stall();
      throw new Error('the run failed');
    });
    await expect(failing).rejects.toThrow('the run failed');
    expect(unlockWarnings()).toBe(warningsBefore + 1);
    proxy.resume();
    await expect.poll(freeForOthers, { timeout: 5000, interval: 100 }).toBe(true);
  });

  it('hands a healthy connection back to the pool after the lock, and keeps it', async () => {
    const holders = new Set<number>();
    for (let run = 0; run < 3; run += 1) {
      await lockAndRun(throughProxy, async () => {
        for (const pid of await holder()) holders.add(pid);
      });
    }
    expect(await freeForOthers()).toBe(true);
    expect(holders.size).toBe(1);
  });
});
