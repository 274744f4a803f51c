import { createKnex, migrateToLatest, openKeptConnections, type Knex, type MigrationSet } from '@timetable/db';
import type { Logger } from '@timetable/observability';

export interface ServiceStoreSettings {
  connectionString: string;
  /** The service's own schema; its migrations run there. */
  schema: string;
  migrations: MigrationSet;
  logger: Logger;
  poolMax?: number;
  /** Connections opened at start and kept open through idle periods (see `KnexSettings.connectionsKept`). */
  connectionsKept?: number;
}

/**
 * A service's store as every runner opens it, one process per service or all in one: a knex on the service's
 * schema, migrated to latest before anything reads it. A migration that fails closes the pool again, so a
 * failed start holds no connections. Knex refuses (rather than waits) when another process holds the
 * migration lock, so further replicas start once the first one is up. The kept connections are opened once
 * the store is migrated, so a start that cannot open them fails as one that cannot migrate does.
 */
export async function openServiceStore(settings: ServiceStoreSettings): Promise<Knex> {
  const knex = createKnex({
    connectionString: settings.connectionString,
    schema: settings.schema,
    ...(settings.poolMax === undefined ? {} : { poolMax: settings.poolMax }),
    ...(settings.connectionsKept === undefined ? {} : { connectionsKept: settings.connectionsKept }),
    logger: settings.logger.child({ schema: settings.schema }),
  });
  try {
    await migrateToLatest(knex, settings.schema, settings.migrations);
    await openKeptConnections(knex);
  } catch (error) {
    await knex.destroy();
    throw error;
  }
  return knex;
}
