/** A session advisory lock on a dedicated connection: one sync run at a time across all replicas. */
import type { Knex } from '@timetable/db';

interface LockConnection {
  query(sql: string, values: unknown[]): Promise<{ rows: { locked?: boolean }[] }>;
}

/** Runs `work` while holding the lock; returns undefined without running it when another holder has it. */
export async function withAdvisoryLock<T>(knex: Knex, name: string, work: () => Promise<T>): Promise<T | undefined> {
  const connection = (await knex.client.acquireConnection()) as LockConnection;
  try {
    const result = await connection.query('select pg_try_advisory_lock(hashtext($1)) as locked', [name]);
    if (!result.rows[0]?.locked) return undefined;
    try {
      return await work();
    } finally {
      await connection.query('select pg_advisory_unlock(hashtext($1))', [name]);
    }
  } finally {
    await knex.client.releaseConnection(connection);
  }
}
