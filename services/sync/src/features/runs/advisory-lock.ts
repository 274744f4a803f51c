/** A session advisory lock on a dedicated connection: one sync run at a time across all replicas. */
import { endSession, withPooledConnection, type Knex, type PooledConnection } from '@timetable/db';
import type { Logger } from '@timetable/observability';

/**
 * How long a lock statement may go unanswered before its connection counts as lost. Neither statement waits
 * for other sessions (try-lock answers false at once), so only a connection that stopped answering takes this
 * long: one kept open between runs whose peer vanished without a word. With a statement in flight the kernel
 * does not probe the connection and gives it up only when it stops retransmitting, about 15 minutes on.
 */
export const LOCK_STATEMENT_TIMEOUT_MS = 10_000;

export interface AdvisoryLockOptions {
  logger: Logger;
  statementTimeoutMs?: number;
}

/**
 * Runs `work` while holding the lock; returns undefined without running it when another holder has it.
 *
 * A lock statement that fails or gets no answer ends the connection's session rather than handing it back:
 * the lock's state on it is unknown, and a session that lived on holding the lock (kept in the pool, as the
 * sync's connections are) would keep every replica's runs out until the process restarted. Once the server
 * sees the session close it frees the lock. A failed try-lock fails the run; a failed unlock does not change
 * the outcome of the work it followed, which is returned or thrown as it was, and is logged.
 */
export async function withAdvisoryLock<T>(knex: Knex, name: string, work: () => Promise<T>, options: AdvisoryLockOptions): Promise<T | undefined> {
  const timeoutMs = options.statementTimeoutMs ?? LOCK_STATEMENT_TIMEOUT_MS;
  return withPooledConnection(knex, async (connection) => {
    let locked: boolean;
    try {
      locked = await answer(connection, 'select pg_try_advisory_lock(hashtext($1)) as answer', name, timeoutMs);
    } catch (error) {
      await endSession(connection, `the advisory lock "${name}" could not be taken: ${(error as Error).message}`, timeoutMs);
      throw new Error(`could not take the advisory lock "${name}": ${(error as Error).message}`, { cause: error });
    }
    if (!locked) return undefined;
    try {
      return await work();
    } finally {
      await unlock(connection, name, timeoutMs, options.logger);
    }
  });
}

async function unlock(connection: PooledConnection, name: string, timeoutMs: number, logger: Logger): Promise<void> {
  let failure: string;
  try {
    if (await answer(connection, 'select pg_advisory_unlock(hashtext($1)) as answer', name, timeoutMs)) return;
    failure = 'the session did not hold it';
  } catch (error) {
    failure = (error as Error).message;
  }
  logger.warn({ lock: name, error: failure }, 'the advisory lock could not be released; ending its session');
  await endSession(connection, `the advisory lock "${name}" could not be released: ${failure}`, timeoutMs);
}

async function answer(connection: PooledConnection, text: string, name: string, timeoutMs: number): Promise<boolean> {
  const result = await connection.query<{ answer: boolean }>({ text, values: [name], query_timeout: timeoutMs });
  return result.rows[0]?.answer === true;
}
