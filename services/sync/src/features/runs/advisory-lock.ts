/** A session advisory lock on a dedicated connection: one sync run at a time across all replicas. */
import { withPooledConnection, type Knex } from '@timetable/db';

/** Runs `work` while holding the lock; returns undefined without running it when another holder has it. */
export async function withAdvisoryLock<T>(knex: Knex, name: string, work: () => Promise<T>): Promise<T | undefined> {
  return withPooledConnection(knex, async (connection) => {
    const result = await connection.query<{ locked: boolean }>('select pg_try_advisory_lock(hashtext($1)) as locked', [name]);
    if (!result.rows[0]?.locked) return undefined;
    try {
      return await work();
    } finally {
      await connection.query('select pg_advisory_unlock(hashtext($1))', [name]);
    }
  });
}
