import knexFactory, { type Knex } from 'knex';
import pg from 'pg';

// COUNT(*) and bigserial come back as int8; our counts and ids fit comfortably in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));

export interface KnexSettings {
  connectionString: string;
  /** The service's own schema: its tables live there and nowhere else. */
  schema: string;
  poolMax?: number;
  applicationName?: string;
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
  });
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
