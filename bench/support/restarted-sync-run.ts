/**
 * The first run of a sync process started for it, for `npm run bench:sync`: what a restarted sync's first run
 * costs when the stored snapshot is current, an unchanged re-sync in a process whose code has run nothing yet
 * (the scheduler runs once at start). The process is built as the bench's own sync is; only the run itself is
 * timed, not the start-up (which here also compiles TypeScript).
 *
 * Run as a child with the sync's Node options: RESTART_DATABASE_URL (the bench's database), RESTART_UPSTREAM_URL,
 * RESTART_TIME_ZONE. Prints one JSON line: the run's wall and CPU seconds and its result.
 */
import { createKnex } from '@timetable/db';
import { createLogger } from '@timetable/observability';
import { createSyncService, SYNC_SCHEMA } from '@timetable/sync';
import { PublishOnlyBus } from './publish-only-bus.js';

const setting = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must be set`);
  return value;
};
const knex = createKnex({ connectionString: setting('RESTART_DATABASE_URL'), schema: SYNC_SCHEMA, poolMax: 5 });
try {
  const sync = await createSyncService({
    knex,
    bus: new PublishOnlyBus(),
    logger: createLogger({ name: 'sync-bench-restarted', level: 'warn' }),
    upstreamBaseUrl: setting('RESTART_UPSTREAM_URL'),
    intervalSeconds: 3600,
    timeZone: setting('RESTART_TIME_ZONE'),
    fetchTimeoutMs: 60_000,
  });
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await sync.runOnce();
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  process.stdout.write(`${JSON.stringify({ seconds, cpuSeconds: (used.user + used.system) / 1e6, result })}\n`);
} finally {
  await knex.destroy();
}
