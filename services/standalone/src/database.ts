import { startEmbeddedPostgres } from '@timetable/db';
import type { Logger } from '@timetable/observability';
import type { StandaloneConfig } from './config.js';

export interface Database {
  connectionString: string;
  stop(): Promise<void>;
}

/** An existing server when DATABASE_URL is set, else a real PostgreSQL from npm under DATA_DIR. */
export async function openDatabase(config: StandaloneConfig, logger: Logger): Promise<Database> {
  if (config.DATABASE_URL) return { connectionString: config.DATABASE_URL, stop: () => Promise.resolve() };
  return startEmbeddedPostgres({
    dataDir: config.DATA_DIR,
    port: config.EMBEDDED_PG_PORT,
    database: 'timetable',
    logger: logger.child({ component: 'postgres' }),
  });
}
