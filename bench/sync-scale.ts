/**
 * First sync of the simulator university at a given scale (default 10, bench/README.md: <= 60 s and
 * <= 512 MB RSS), then an unchanged re-sync (target: <= 10 % of the first). The simulator runs in a child
 * process so the reported RSS is the sync's own; the sync writes to a fresh database that is dropped after.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { createKnex, migrateToLatest } from '@timetable/db';
import { InProcessBus } from '@timetable/events';
import { createLogger } from '@timetable/observability';
import { createSyncService, SYNC_SCHEMA, syncMigrations } from '@timetable/sync';

const scale = Number(process.env.BENCH_SCALE ?? '10');
const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const repoRoot = path.resolve(import.meta.dirname, '..');
const logger = createLogger({ name: 'sync-bench', level: 'warn' });

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function startSimulatorProcess(port: number): Promise<() => void> {
  const child = spawn(process.execPath, ['--conditions=@timetable/source', '--import', 'tsx', 'tools/starplan-sim/src/main.ts'], {
    cwd: repoRoot,
    env: { ...process.env, SIM_PORT: String(port), SIM_SCALE: String(scale), SIM_HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const answered = await fetch(`http://127.0.0.1:${port}/splan/json?m=getpus`).then((response) => response.ok, () => false);
    if (answered) return () => child.kill('SIGTERM');
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('simulator did not start');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function withAdmin(work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

/** Samples RSS while a promise runs and returns its duration and the peak. */
async function measure<T>(work: () => Promise<T>): Promise<{ result: T; seconds: number; peakRssMb: number }> {
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const started = performance.now();
  try {
    const result = await work();
    return { result, seconds: (performance.now() - started) / 1000, peakRssMb: Math.round(Math.max(peak, process.memoryUsage().rss) / 2 ** 20) };
  } finally {
    clearInterval(sampler);
  }
}

const port = await freePort();
const stopSimulator = await startSimulatorProcess(port);
const database = `timetable_bench_${randomBytes(4).toString('hex')}`;
await withAdmin((client) => client.query(`create database ${database}`));
const url = new URL(adminUrl);
url.pathname = `/${database}`;
const knex = createKnex({ connectionString: url.toString(), schema: SYNC_SCHEMA, poolMax: 5 });
try {
  await migrateToLatest(knex, SYNC_SCHEMA, syncMigrations);
  const sync = await createSyncService({
    knex,
    bus: new InProcessBus(logger),
    logger,
    upstreamBaseUrl: `http://127.0.0.1:${port}/splan`,
    intervalSeconds: 3600,
    timeZone: 'Europe/Berlin',
    fetchTimeoutMs: 30_000,
  });
  const first = await measure(() => sync.runOnce());
  const publish = await measure(() => sync.relay.drain());
  const second = await measure(() => sync.runOnce());
  const occurrences = await knex('snapshot_entities').where({ entity_type: 'event' }).count<{ count: number }[]>({ count: '*' });
  const report = {
    scale,
    firstSync: { seconds: first.seconds, peakRssMb: first.peakRssMb, status: first.result.status, changes: first.result.created },
    publishOutbox: { seconds: publish.seconds },
    unchangedResync: { seconds: second.seconds, status: second.result.status, changes: second.result.created + second.result.updated + second.result.deleted },
    resyncShareOfFirst: second.seconds / first.seconds,
    events: Number(occurrences[0]?.count ?? 0),
    node: process.version,
  };
  process.stdout.write(
    [
      `scale ${scale}: first sync ${first.seconds.toFixed(1)} s (${first.result.created} changes, peak RSS ${first.peakRssMb} MB, ${first.result.status})`,
      `publishing the outbox: ${publish.seconds.toFixed(1)} s`,
      `unchanged re-sync ${second.seconds.toFixed(1)} s (${report.unchangedResync.changes} changes) = ${(report.resyncShareOfFirst * 100).toFixed(0)} % of the first`,
      'targets (bench/README.md): first sync <= 60 s and <= 512 MB RSS at scale 10; unchanged re-sync <= 10 %',
      '',
    ].join('\n'),
  );
  await mkdir(path.join(repoRoot, 'bench/results'), { recursive: true });
  await writeFile(path.join(repoRoot, 'bench/results/sync-scale.json'), `${JSON.stringify(report, null, 2)}\n`);
} finally {
  await knex.destroy();
  await withAdmin((client) => client.query(`drop database if exists ${database} with (force)`));
  stopSimulator();
}
