import { loadStandaloneConfig, startEmbeddedSystem, type RunningSystem } from '@timetable/standalone';
import { captureLogger, createTestDatabase, type TestDatabase } from '@timetable/testing';

/** Where the black-box tests send their requests, and how to release it afterwards. */
export interface Target {
  /** Origin without a trailing slash, e.g. `http://127.0.0.1:40123`. */
  baseUrl: string;
  /** Absolute base of legacy redirects (PUBLIC_BASE_URL of the stack), without a trailing slash. */
  publicBaseUrl: string;
  stop(): Promise<void>;
}

export interface TargetOptions {
  /** RATE_LIMITS for the embedded system; ignored for an external stack. */
  rateLimits?: string;
  /** REGISTER_LIMITS for the embedded system; ignored for an external stack. */
  registerLimits?: string;
}

const EXTERNAL_BASE_URL = process.env.BLACK_BOX_BASE_URL;
/** The external stack's PUBLIC_BASE_URL when it differs from BLACK_BOX_BASE_URL. */
const EXTERNAL_PUBLIC_BASE_URL = process.env.BLACK_BOX_PUBLIC_BASE_URL;
const EMBEDDED_PUBLIC_BASE_URL = 'https://timetable.example.edu';
const HIGH_RATE_LIMITS = '1000000/1s';
const FIRST_SYNC_TIMEOUT_MS = 60_000;

/**
 * BLACK_BOX_BASE_URL set: that stack, as it is. Otherwise the whole system in-process on a fresh test
 * database, with the built-in upstream simulator. Either way it resolves once the first sync is done.
 */
export async function startTarget(options: TargetOptions = {}): Promise<Target> {
  if (EXTERNAL_BASE_URL) {
    const baseUrl = withoutTrailingSlash(EXTERNAL_BASE_URL);
    await waitForFirstSync(baseUrl);
    const publicBaseUrl = withoutTrailingSlash(EXTERNAL_PUBLIC_BASE_URL ?? baseUrl);
    return { baseUrl, publicBaseUrl, stop: () => Promise.resolve() };
  }
  const database: TestDatabase = await createTestDatabase();
  let system: RunningSystem | undefined;
  try {
    const config = loadStandaloneConfig({
      PORT: '0',
      DATABASE_URL: database.connectionString,
      RATE_LIMITS: options.rateLimits ?? HIGH_RATE_LIMITS,
      REGISTER_LIMITS: options.registerLimits ?? HIGH_RATE_LIMITS,
      SYNC_INTERVAL_SECONDS: '86400',
      LOG_LEVEL: 'fatal',
      PUBLIC_BASE_URL: EMBEDDED_PUBLIC_BASE_URL,
    });
    system = await startEmbeddedSystem(config, captureLogger('fatal').logger);
    // In-process, so the wait spends none of the read budget that the rate-limit file counts.
    await system.firstSyncPublished();
  } catch (error) {
    await system?.stop();
    await database.drop();
    throw error;
  }
  const running = system;
  return {
    baseUrl: withoutTrailingSlash(running.url),
    publicBaseUrl: EMBEDDED_PUBLIC_BASE_URL,
    stop: async () => {
      await running.stop();
      await database.drop();
    },
  };
}

/**
 * An external stack has synced once /sync/status names a fetch (the stack waits for its first sync before
 * it hands out its URL, so this is normally one read).
 */
async function waitForFirstSync(baseUrl: string): Promise<void> {
  const deadline = Date.now() + FIRST_SYNC_TIMEOUT_MS;
  await pollUntil(deadline, baseUrl, '/v1/timetable/sync/status', (body) => {
    const status = body as { data?: { lastFetchedAt?: string | null } };
    return Boolean(status.data?.lastFetchedAt);
  });
}

async function pollUntil(deadline: number, baseUrl: string, path: string, done: (body: unknown) => boolean): Promise<void> {
  for (;;) {
    const response = await fetch(`${baseUrl}${path}`).catch(() => undefined);
    if (response?.ok && done(await response.json())) return;
    await response?.body?.cancel().catch(() => undefined);
    if (Date.now() > deadline) throw new Error(`${baseUrl}${path} not ready within ${FIRST_SYNC_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
