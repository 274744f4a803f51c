import { createKnex, migrateToLatest, type Knex, type MigrationSet } from '@timetable/db';
import type { Logger } from '@timetable/observability';

export interface ServiceStoreSettings {
  connectionString: string;
  /** The service's own schema; its migrations run there. */
  schema: string;
  migrations: MigrationSet;
  logger: Logger;
  poolMax?: number;
}

/**
 * A service's store as every runner opens it, one process per service or all in one: a knex on the service's
 * schema, migrated to latest before anything reads it. A migration that fails closes the pool again, so a
 * failed start holds no connections. Knex refuses (rather than waits) when another process holds the
 * migration lock, so further replicas start once the first one is up.
 */
export async function openServiceStore(settings: ServiceStoreSettings): Promise<Knex> {
  const knex = createKnex({
    connectionString: settings.connectionString,
    schema: settings.schema,
    ...(settings.poolMax === undefined ? {} : { poolMax: settings.poolMax }),
    logger: settings.logger.child({ schema: settings.schema }),
  });
  try {
    await migrateToLatest(knex, settings.schema, settings.migrations);
  } catch (error) {
    await knex.destroy();
    throw error;
  }
  return knex;
}
