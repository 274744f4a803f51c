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
  /** From the start call until the first sync's events reached every service. */
  readyMs: number;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 60_000;

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
    // The gateway would answer 429 after ten requests; the benchmark measures serving, not throttling. Three
    // tiers like the default's, each too large to refuse, so the limiter does the default's work per request.
    RATE_LIMITS: '1000000000/1s,1000000000/1m,1000000000/1h',
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
    await waitUntilSynced(system);
  } catch (error) {
    await stop();
    throw error;
  }
  return { system, api: `${base}/v1/timetable`, readyMs: performance.now() - started, stop };
}

/** The first run's events reached every service (the embedded bus delivers before the relay moves on). */
async function waitUntilSynced(system: RunningSystem): Promise<void> {
  const timeout = sleep(READY_TIMEOUT_MS, undefined, { ref: false }).then(() => {
    throw new Error(`the embedded system did not finish its first sync within ${READY_TIMEOUT_MS / 1000} s`);
  });
  await Promise.race([system.firstSyncPublished(), timeout]);
}
