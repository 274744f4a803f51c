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
  applicationName?: string;
  /** Knex otherwise prints its warnings (pool errors, deprecations) to the console, outside the JSON log. */
  logger?: Logger;
}

export function createKnex(settings: KnexSettings): Knex {
  return knexFactory({
    client: 'pg',
    connection: {
      connectionString: settings.connectionString,
      application_name: settings.applicationName ?? `timetable-${settings.schema}`,
    },
    searchPath: [settings.schema, 'public'],
    pool: { min: 0, max: settings.poolMax ?? 10 },
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

/** A cheap query for /ready. */
export async function isDatabaseReachable(knex: Knex): Promise<boolean> {
  try {
    await knex.raw('select 1');
    return true;
  } catch {
    return false;
  }
}
