/**
 * The embedded system as `npm start` runs it (default simulator university), on a temporary DATA_DIR unless
 * DATABASE_URL names a server to use, with rate limits far above what a benchmark sends.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '@timetable/observability';
import { loadStandaloneConfig, startEmbeddedSystem, type RunningSystem } from '@timetable/standalone';

export interface BenchSystem {
  system: RunningSystem;
  /** Base of the public API on 127.0.0.1, e.g. `http://127.0.0.1:40123/v1/timetable`. */
  api: string;
  /** From the start call until /ready answered 200 and the catalog holds the first sync. */
  readyMs: number;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 60_000;
const STABLE_POLLS = 4;

export async function startBenchSystem(env: Record<string, string | undefined>): Promise<BenchSystem> {
  const started = performance.now();
  const dataDir = env.DATABASE_URL ? undefined : await mkdtemp(path.join(tmpdir(), 'timetable-bench-'));
  // Embedded PostgreSQL runs as another user when we are root; it must reach the directory.
  if (dataDir) await chmod(dataDir, 0o755);
  const config = loadStandaloneConfig({
    PORT: '0',
    DATA_DIR: dataDir ?? './.data',
    DATABASE_URL: env.DATABASE_URL,
    TIME_ZONE: 'Europe/Berlin',
    LOG_LEVEL: 'warn',
    // The gateway would answer 429 after ten requests; the benchmark measures serving, not throttling.
    RATE_LIMITS: '1000000000/1s',
    // No second sync (and cache bump) in the middle of a measurement.
    SYNC_INTERVAL_SECONDS: '3600',
  });
  const system = await startEmbeddedSystem(config, createLogger({ name: 'timetable-bench', level: 'warn' }));
  const base = `http://127.0.0.1:${system.port}`;
  const stop = async () => {
    await system.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  };
  try {
    await waitUntilSynced(base);
  } catch (error) {
    await stop();
    throw error;
  }
  return { system, api: `${base}/v1/timetable`, readyMs: performance.now() - started, stop };
}

/**
 * Polls /sync/status and /statistics first: the gateway logs every 503 of /ready as an error. The first run
 * has fetched once lastFetchedAt is set; its states are projected once the event count held still for a
 * second; /ready (which includes the first run's completion) then confirms.
 */
async function waitUntilSynced(base: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastEvents = -1;
  let stablePolls = 0;
  while (Date.now() < deadline) {
    await sleep(250);
    const status = await getJson<{ data: { lastFetchedAt: string | null } }>(`${base}/v1/timetable/sync/status`);
    if (!status?.data.lastFetchedAt) continue;
    const events = (await getJson<{ data: { events: number } }>(`${base}/v1/timetable/statistics`))?.data.events ?? 0;
    stablePolls = events > 0 && events === lastEvents ? stablePolls + 1 : 0;
    lastEvents = events;
    if (stablePolls < STABLE_POLLS) continue;
    if ((await fetch(`${base}/ready`)).status === 200) return;
    // Other consumers may still be working through the first run: ask /ready less often.
    await sleep(750);
  }
  throw new Error(`the embedded system did not finish its first sync within ${READY_TIMEOUT_MS / 1000} s`);
}

async function getJson<T>(url: string): Promise<T | null> {
  const response = await fetch(url);
  return response.status === 200 ? ((await response.json()) as T) : null;
}
