import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import type { Logger } from '@timetable/observability';

// COUNT(*) and bigserial come back as int8; our counts and ids fit comfortably in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));

export interface KnexSettings {
  connectionString: string;
  /** The service's own schema: its tables live there and nowhere else. */
  schema: string;
  poolMax?: number;
  /**
   * Connections the pool keeps open however long they idle (its minimum; none by default): for a service
   * whose work comes minutes apart, longer than the pool's idle timeout, and should not open its
   * connections each time. `openKeptConnections` opens them ahead of that work.
   */
  connectionsKept?: number;
  applicationName?: string;
  /** Knex otherwise prints its warnings (pool errors, deprecations) to the console, outside the JSON log. */
  logger?: Logger;
}

const KEEP_ALIVE_DELAY_MS = 60_000;

export function createKnex(settings: KnexSettings): Knex {
  return knexFactory({
    client: 'pg',
    connection: {
      connectionString: settings.connectionString,
      application_name: settings.applicationName ?? `timetable-${settings.schema}`,
      // TCP keepalive on every connection: a connection that idles for minutes is probed from 60 s on, so
      // a NAT or a TCP load balancer between does not forget it. (Node's libuv also sets the probes 1 s apart,
      // 10 of them, so an idle connection whose peer vanished is given up about 70 s into the silence; one with a
      // statement in flight is not probed, and is given up only when the kernel stops retransmitting it.)
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEP_ALIVE_DELAY_MS,
    },
    searchPath: [settings.schema, 'public'],
    pool: { min: settings.connectionsKept ?? 0, max: settings.poolMax ?? 10 },
    acquireConnectionTimeout: 10_000,
    ...(settings.logger ? { log: knexLog(settings.logger) } : {}),
  });
}

function knexLog(logger: Logger): Knex.Config['log'] {
  const text = (message: unknown) => (typeof message === 'string' ? message : JSON.stringify(message));
  return {
    warn: (message) => logger.warn({ knex: text(message) }, 'knex warning'),
    error: (message) => logger.error({ knex: text(message) }, 'knex error'),
    deprecate: (method, alternative) => logger.warn({ method, alternative }, 'knex deprecation'),
    debug: (message) => logger.debug({ knex: text(message) }, 'knex debug'),
  };
}

/**
 * Opens the pool's kept connections (`connectionsKept`) now, all at once, so that the work they are kept
 * for does not open them (each costs a connection start and knex's `set search_path`); the pool then keeps
 * them. Any connection already open counts. The pool does not reopen them by itself once they are gone
 * (PostgreSQL restarted): the work that next needs them opens them, and the pool keeps those.
 */
export async function openKeptConnections(knex: Knex): Promise<void> {
  const count = (knex.client as { pool?: { min: number } }).pool?.min ?? 0;
  // Every attempt settles before any connection goes back, so none acquired after a failure stays taken.
  const acquired = await Promise.allSettled(Array.from({ length: count }, () => knex.client.acquireConnection() as Promise<unknown>));
  await Promise.all(acquired.flatMap((outcome) => (outcome.status === 'fulfilled' ? [knex.client.releaseConnection(outcome.value)] : [])));
  const failed = acquired.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}

/** A cheap query for /ready. */
export async function isDatabaseReachable(knex: Knex): Promise<boolean> {
  try {
    await knex.raw('select 1');
    return true;
  } catch {
    return false;
  }
}
