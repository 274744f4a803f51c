/**
 * The first run of a process started for it, for `npm run bench:sync`: what a restarted sync's first run costs
 * when the stored snapshot is current (an unchanged re-sync in a process whose code has run nothing yet; the
 * scheduler runs once at start), or, with RESTART_ADDRESSES, what the first pass of the fetching and hashing
 * loop costs in such a process: the least any client started afresh can do to read the same answers. Both
 * processes load the same modules and open the store as the service starts (migrated, its kept connections
 * open) before the clock starts, so only the run itself is timed, not the start-up (which here also compiles
 * TypeScript).
 *
 * Run as a child with the sync's Node options and V8 flags: RESTART_DATABASE_URL (the bench's database), RESTART_UPSTREAM_URL,
 * RESTART_TIME_ZONE, and optionally RESTART_ADDRESSES (a JSON file listing the addresses to fetch and hash) and
 * RESTART_PROFILE (where to write a CPU profile of the run, which the profiler slows: such a run is no figure).
 * Prints one JSON line: the run's wall and CPU seconds (the process's and its main thread's), for the sync its
 * result, and the profile's summary.
 */
import { readFile } from 'node:fs/promises';
import { createLogger } from '@timetable/observability';
import { openServiceStore } from '@timetable/service-kit';
import { createSyncService, SYNC_CONNECTIONS_KEPT, SYNC_SCHEMA, syncMigrations } from '@timetable/sync';
import { UPSTREAM_CONCURRENCY } from '@timetable/sync/testing';
import { bareFetch } from './bare-fetch.js';
import { profileWhile } from './cpu-profile.js';
import { mainThreadCpuSeconds } from './proc-cpu.js';
import { PublishOnlyBus } from './publish-only-bus.js';
import { requiredSetting } from './required-setting.js';
const addressesFile = process.env.RESTART_ADDRESSES;
const profileFile = process.env.RESTART_PROFILE;
const timeZone = requiredSetting('RESTART_TIME_ZONE');
const logger = createLogger({ name: 'sync-bench-restarted', level: 'warn' });
// As the service's start opens it before its first run, so the run finds its connections open.
const knex = await openServiceStore({
  connectionString: requiredSetting('RESTART_DATABASE_URL'),
  schema: SYNC_SCHEMA,
  migrations: syncMigrations,
  logger,
  poolMax: 5,
  connectionsKept: SYNC_CONNECTIONS_KEPT,
});
try {
  const sync = await createSyncService({
    knex,
    bus: new PublishOnlyBus(),
    logger,
    upstreamBaseUrl: requiredSetting('RESTART_UPSTREAM_URL'),
    intervalSeconds: 3600,
    timeZone,
    fetchTimeoutMs: 60_000,
  });
  const addresses = addressesFile === undefined ? undefined : (JSON.parse(await readFile(addressesFile, 'utf8')) as string[]);
  const work = addresses === undefined
    ? () => sync.runOnce()
    : async () => ({ bytes: await bareFetch(addresses, UPSTREAM_CONCURRENCY, { timeZone }) });
  const timed = async () => {
    const cpu = process.cpuUsage();
    const mainThreadBefore = await mainThreadCpuSeconds();
    const started = performance.now();
    const result = await work();
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    // The process's CPU includes its helper threads'; /proc tells the main thread's apart (10 ms ticks).
    return { seconds, cpuSeconds: (used.user + used.system) / 1e6, mainThreadCpuSeconds: (await mainThreadCpuSeconds()) - mainThreadBefore, result };
  };
  const outcome = profileFile === undefined ? await timed() : await profileWhile(profileFile, timed).then(({ result, summary }) => ({ ...result, profile: summary }));
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
} finally {
  await knex.destroy();
}
