import type { Knex } from 'knex';

/** A connection of knex's pool, as node-postgres's client answers a query: text and its values. */
export interface PooledConnection {
  query<Row = Record<string, unknown>>(sql: string, values?: readonly unknown[]): Promise<{ rows: Row[] }>;
}

/**
 * Runs `work` on one connection of the knex's pool, handed back afterwards whatever happens. For the few
 * statements that need a session of their own (a session advisory lock) or that knex's transactions would
 * cost round trips (BEGIN sent with the statement after it). knex keeps these calls off its typed API; a
 * connection that broke meanwhile is marked by knex and dropped by the pool instead of being reused.
 */
export async function withPooledConnection<T>(knex: Knex, work: (connection: PooledConnection) => Promise<T>): Promise<T> {
  const connection = (await knex.client.acquireConnection()) as PooledConnection;
  try {
    return await work(connection);
  } finally {
    await knex.client.releaseConnection(connection);
  }
}
