import type { Knex } from 'knex';
import pg from 'pg';

/** A statement with the longest the client waits for its answer (node-postgres's `query_timeout`). */
export interface TimedStatement {
  text: string;
  values?: readonly unknown[];
  /** Milliseconds; past them the query fails with "Query read timeout" and the connection is left mid-query. */
  query_timeout: number;
}

/** A connection of knex's pool, as node-postgres's client answers a query: text and its values. */
export interface PooledConnection {
  query<Row = Record<string, unknown>>(sql: string, values?: readonly unknown[]): Promise<{ rows: Row[] }>;
  query<Row = Record<string, unknown>>(statement: TimedStatement): Promise<{ rows: Row[] }>;
  end(): Promise<void>;
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

/** knex's mark on a connection its pool must not hand out again; knex sets it when a connection errs or ends. */
interface KnexMarked {
  __knex__disposed?: unknown;
}

/**
 * Ends the connection's session, for a connection whose state is no longer known (a statement that failed or
 * got no answer): the server frees what the session held (a session advisory lock, an open transaction) once it
 * sees the connection close. node-postgres closes the socket at once when a query is still waiting for its
 * answer, and says goodbye first otherwise; that goodbye is not waited for longer than `waitMs`, after which the
 * socket is closed without it. The connection is
 * marked for knex's pool first (with `reason`), so that it is dropped when next asked for rather than handed out
 * again even if the goodbye has not finished by the time it is released. Once the connection has ended knex
 * overwrites the mark with its own ("Connection ended unexpectedly"), which is what it logs when it drops it;
 * the caller logs why.
 */
export async function endSession(connection: PooledConnection, reason: string, waitMs: number): Promise<void> {
  (connection as PooledConnection & KnexMarked).__knex__disposed ??= reason;
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, waitMs);
  });
  let finished = false;
  const goodbye = connection.end().then(
    () => void (finished = true),
    () => void (finished = true),
  );
  try {
    await Promise.race([goodbye, waited]);
  } finally {
    clearTimeout(timer);
  }
  // A goodbye the server never acknowledged would leave the socket open for as long as the kernel keeps it.
  if (!finished) (connection as PooledConnection & ClientSocket).connection?.stream?.destroy();
}

/** node-postgres's client keeps its socket here. */
interface ClientSocket {
  connection?: { stream?: { destroy(): void } };
}

/**
 * Whether the server refused the statement with an error it survives (severity ERROR): the connection is alive
 * and its session's state is known (a transaction it was in is aborted, and a ROLLBACK ends it). A FATAL or
 * PANIC error ends the session, and any other failure (no answer in time, a broken connection) leaves its state
 * unknown.
 */
export function refusedByServer(error: unknown): boolean {
  return error instanceof pg.DatabaseError && error.severity === 'ERROR';
}
