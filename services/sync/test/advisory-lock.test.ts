/**
 * The run lock's failures that a real server rarely produces on demand: an unlock that answers false or
 * errs on a connection that still answers, and a goodbye that never completes. Each ends the session
 * (the server frees whatever it held), marks the connection so knex's pool drops it, and never changes the
 * work's outcome.
 */
import { describe, expect, it } from 'vitest';
import type { Knex, PooledConnection } from '@timetable/db';
import { captureLogger } from '@timetable/testing';
import { withAdvisoryLock } from '../src/features/runs/advisory-lock.js';

type Answer = boolean | Error;

/** A pooled connection that answers the try-lock and the unlock as told, and records what was done to it. */
class ScriptedConnection {
  ended = 0;
  released = false;
  __knex__disposed?: unknown;
  /** As node-postgres's client holds its socket. */
  readonly connection = { stream: { destroyed: false, destroy: () => void (this.connection.stream.destroyed = true) } };

  constructor(
    private readonly tryLock: Answer,
    private readonly unlock: Answer,
    private readonly endNeverFinishes = false,
  ) {}

  query(statement: { text: string; query_timeout?: number }): Promise<{ rows: { answer: boolean }[] }> {
    // Each lock statement carries the lock's timeout: the client gives up on it rather than wait on a silent connection.
    if (statement.query_timeout !== 50) return Promise.reject(new Error(`no statement timeout on: ${statement.text}`));
    const answer = statement.text.includes('pg_try_advisory_lock') ? this.tryLock : this.unlock;
    return answer instanceof Error ? Promise.reject(answer) : Promise.resolve({ rows: [{ answer }] });
  }

  end(): Promise<void> {
    this.ended += 1;
    return this.endNeverFinishes ? new Promise(() => undefined) : Promise.resolve();
  }
}

function poolOf(connection: ScriptedConnection): Knex {
  const client = {
    acquireConnection: async () => connection as unknown as PooledConnection,
    releaseConnection: async () => {
      connection.released = true;
    },
  };
  return { client } as unknown as Knex;
}

function lock(connection: ScriptedConnection, work: () => Promise<string>) {
  const { logger, lines } = captureLogger('warn');
  const result = withAdvisoryLock(poolOf(connection), 'runs', work, { logger, statementTimeoutMs: 50 });
  return { result, lines };
}

describe('the run lock when its statements fail', () => {
  it('keeps the session of a lock released normally', async () => {
    const connection = new ScriptedConnection(true, true);
    await expect(lock(connection, async () => 'done').result).resolves.toBe('done');
    expect(connection.ended).toBe(0);
    expect(connection.connection.stream.destroyed).toBe(false);
    expect(connection.__knex__disposed).toBeUndefined();
    expect(connection.released).toBe(true);
  });

  it('runs nothing and keeps the session when another holder has the lock', async () => {
    const connection = new ScriptedConnection(false, true);
    let ran = false;
    await expect(lock(connection, async () => String((ran = true))).result).resolves.toBeUndefined();
    expect(ran).toBe(false);
    expect(connection.ended).toBe(0);
  });

  it('ends the session and fails, naming the lock, when the try-lock errs', async () => {
    const connection = new ScriptedConnection(new Error('canceling statement due to user request'), true);
    await expect(lock(connection, async () => 'done').result).rejects.toThrow('could not take the advisory lock "runs": canceling statement due to user request');
    expect(connection.ended).toBe(1);
    expect(connection.__knex__disposed).toBe('the advisory lock "runs" could not be taken: canceling statement due to user request');
    expect(connection.released).toBe(true);
  });

  it.each([
    ['answers that the session did not hold it', false, 'the session did not hold it'],
    ['errs', new Error('terminating connection due to administrator command'), 'terminating connection due to administrator command'],
  ])('ends the session and returns the outcome when the unlock %s', async (_case, unlockAnswer, logged) => {
    const connection = new ScriptedConnection(true, unlockAnswer);
    const { result, lines } = lock(connection, async () => 'committed');
    await expect(result).resolves.toBe('committed');
    expect(connection.ended).toBe(1);
    expect(connection.__knex__disposed).toBe(`the advisory lock "runs" could not be released: ${logged}`);
    expect(lines()).toContainEqual(expect.objectContaining({ msg: 'the advisory lock could not be released; ending its session', lock: 'runs', error: logged }));
  });

  it("keeps the work's failure when the unlock fails after it", async () => {
    const connection = new ScriptedConnection(true, new Error('connection lost'));
    await expect(lock(connection, async () => Promise.reject(new Error('the run failed'))).result).rejects.toThrow('the run failed');
    expect(connection.ended).toBe(1);
  });

  it('hands the connection back, marked for the pool to drop, when the goodbye never finishes', async () => {
    const connection = new ScriptedConnection(true, new Error('connection lost'), true);
    await expect(lock(connection, async () => 'committed').result).resolves.toBe('committed');
    expect(connection.released).toBe(true);
    expect(connection.__knex__disposed).toBeDefined();
    // Nor is its socket left open waiting for it.
    expect(connection.connection.stream.destroyed).toBe(true);
  });
});
