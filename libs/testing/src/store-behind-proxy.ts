import { createKnex, migrateToLatest, type Knex, type MigrationSet } from '@timetable/db';
import type { Logger } from '@timetable/observability';
import { TcpProxy } from './tcp-proxy.js';
import { createTestDatabase } from './test-database.js';

export interface StoreBehindProxy {
  /** The service's pool, its connections through `proxy`: cut it to take the database away from the service. */
  knex: Knex;
  /** Straight to PostgreSQL, for the test's own reads while the service's path is cut. */
  direct: Knex;
  proxy: TcpProxy;
  /** The database's own address (not through the proxy). */
  connectionString: string;
  close(): Promise<void>;
}

/** A fresh database with the service's migrations, which the service reaches through a proxy the test can cut. */
export async function createStoreBehindProxy(schema: string, migrations: MigrationSet, logger?: Logger): Promise<StoreBehindProxy> {
  const database = await createTestDatabase();
  const { hostname, port } = new URL(database.connectionString);
  const proxy = await TcpProxy.start(hostname, Number(port));
  const knex = createKnex({ connectionString: proxy.urlFor(database.connectionString), schema, poolMax: 5, ...(logger ? { logger } : {}) });
  const direct = createKnex({ connectionString: database.connectionString, schema, poolMax: 2, ...(logger ? { logger } : {}) });
  await migrateToLatest(direct, schema, migrations);
  return {
    knex,
    direct,
    proxy,
    connectionString: database.connectionString,
    async close() {
      await knex.destroy();
      await direct.destroy();
      await proxy.close();
      await database.drop();
    },
  };
}
