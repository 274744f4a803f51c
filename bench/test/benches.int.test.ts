/**
 * Each bench the README names runs from a fresh clone and reports what bench/README.md's table is made of.
 * Smoke runs, as small as each bench allows: they prove the commands work and report every figure, against
 * its baseline in the same run; what the figures are is for `bench/README.md`, never asserted here (timing
 * on a shared CI machine says nothing).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SYNC_NODE_OPTIONS } from '@timetable/sync';
import { numberIn, runBench, type BenchRun } from './run-bench.js';

let run: BenchRun | undefined;
afterEach(async () => {
  await run?.cleanup();
  run = undefined;
});

/** Runs the bench and fails with its output when it exits other than 0. */
async function bench(script: string, env: Record<string, string | undefined>): Promise<BenchRun> {
  run = await runBench(script, env);
  if (run.code !== 0) throw new Error(`npm run ${script} exited ${run.code}\n${run.stdout}\n${run.stderr}`);
  return run;
}

interface CatalogReport {
  readyMs: number;
  restRssBytes: number;
  routes: {
    name: string;
    bodyBytes: number;
    ratio: number;
    pairRatios: number[];
    cpuMicrosPerRequest: { gateway: number | null; bare: number | null };
    gateway: { requestsPerSecond: number };
    bare: { requestsPerSecond: number };
  }[];
  icalCold: { name: string; events: number; medianMs: number }[];
}

interface SyncStep {
  seconds: number;
  cpuSeconds: number;
  peakRssMb: number;
  feedsParsed: number;
  feedsUnchanged: number;
  upstreamUnchanged: boolean;
}

interface SyncReport {
  commit: string | null;
  syncProcessOptions: string[];
  scales: {
    scale: number;
    events: number;
    upstreamWarmUp: { planningUnit: number; feeds: number; cpuSecondsPerPass: number[] };
    firstSync: SyncStep;
    unchangedResync: SyncStep & { shareOfFirst: number };
    unchangedResyncWarm: SyncStep & { shareOfFirst: number };
    churn: { eventsChanged: number };
    churnResync: SyncStep & { shareOfFirst: number };
  }[];
}

describe('the benches (smoke runs)', () => {
  it('npm run bench: the student\'s views and the feeds against a bare server in the same run, cold feeds, ready time and RSS at rest', async () => {
    // Without DATABASE_URL the embedded system runs its own PostgreSQL, as `npm run bench` does by default.
    const done = await bench('bench', { DATABASE_URL: undefined, BENCH_DURATION_SECONDS: '1', BENCH_ROUNDS: '1', BENCH_CONNECTIONS: '4' });
    const report = await done.result<CatalogReport>('latest.json');
    expect(report.routes.map((route) => route.name.replace(/\d{4}-W\d{2}/, '<week>').replace(/<\d+ courses>/, '<n courses>'))).toEqual([
      '/week/<week>?groupIds=<one group>',
      '/week/current?groupIds=<one group>',
      '/week/<week>',
      '/semesters/:id/courses',
      '/ical/:semesterId (cached)',
      '/ical?courseIds=<n courses> (cached)',
    ]);
    for (const route of report.routes) {
      expect(route.bodyBytes).toBeGreaterThan(0);
      expect(route.gateway.requestsPerSecond).toBeGreaterThan(0);
      expect(route.bare.requestsPerSecond).toBeGreaterThan(0);
      expect(route.ratio).toBeCloseTo(route.gateway.requestsPerSecond / route.bare.requestsPerSecond, 6);
      // One round: its only pair is the median runs themselves.
      expect(route.pairRatios).toHaveLength(1);
      expect(route.pairRatios[0]).toBeCloseTo(route.ratio, 6);
      // Read from /proc, which this Linux machine has.
      expect(route.cpuMicrosPerRequest.gateway).toBeGreaterThan(0);
      expect(route.cpuMicrosPerRequest.bare).toBeGreaterThan(0);
    }
    expect(done.stdout).toMatch(/CPU µs\/req/);
    expect(report.icalCold).toHaveLength(3);
    // The last cold feed is the one past 1,500 events the target names.
    expect(report.icalCold[2]!.events).toBeGreaterThan(1500);
    expect(report.readyMs).toBeGreaterThan(0);
    expect(report.restRssBytes).toBeGreaterThan(0);
    expect(done.stdout).toMatch(/ready \(health and first sync\): [\d.]+ s; RSS at rest after it: \d+ MB/);
  }, 240_000);

  it('npm run bench:cached-reads: the gateway\'s own work for a cached read, above the harness floor', async () => {
    const done = await bench('bench:cached-reads', { BENCH_REQUESTS: '6400', BENCH_ROUNDS: '1', BENCH_PROFILE: '1' });
    expect(numberIn(done.stdout, /gateway handler:\s+(\d+) ns a request/)).toBeGreaterThan(0);
    expect(numberIn(done.stdout, /harness floor:\s+(\d+) ns a request/)).toBeGreaterThan(0);
    expect(done.stdout).toMatch(/the gateway's own:\s+-?\d+ ns a request/);
    expect(done.stdout).toContain('profile of the cached-read handler');
    const report = await done.result<{ gatewayNs: number[]; floorNs: number[]; ownNs: number }>('cached-read-handler.json');
    expect(report.gatewayNs).toHaveLength(1);
    expect(report.floorNs).toHaveLength(1);
    expect(report.ownNs).toBeCloseTo(report.gatewayNs[0]! - report.floorNs[0]!, 6);
  }, 240_000);

  it('npm run bench:sync: first sync, unchanged re-syncs as a share of it, churn re-sync, peak RSS, with the deployed heap cap', async () => {
    const done = await bench('bench:sync', { BENCH_SCALES: '1' });
    const result = await done.result<SyncReport>('sync-scale.json');
    expect(result.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(result.syncProcessOptions).toEqual(expect.arrayContaining([...SYNC_NODE_OPTIONS]));
    const [scale] = result.scales;
    expect(scale?.scale).toBe(1);
    expect(scale!.events).toBeGreaterThan(0);
    expect(scale!.firstSync.feedsParsed).toBeGreaterThan(0);
    expect(done.stdout).toMatch(/first sync: [\d.]+ s, CPU [\d.]+ s .*peak \d+ MB/);
    // The simulator warmed before the first sync on another term's feeds (the bench throws should the sync
    // have read that term).
    expect(scale!.upstreamWarmUp.cpuSecondsPerPass).toHaveLength(4);
    expect(done.stdout).toMatch(new RegExp(`upstream warmed on planning unit ${scale!.upstreamWarmUp.planningUnit} \\(\\d+ feeds\\)`));
    for (const resync of [scale!.unchangedResync, scale!.unchangedResyncWarm]) {
      // Known unchanged from the fingerprint of every answer, so nothing was loaded, built or compared.
      expect(resync).toMatchObject({ upstreamUnchanged: true, feedsParsed: 0, feedsUnchanged: scale!.firstSync.feedsParsed });
      expect(resync.shareOfFirst).toBeCloseTo(resync.seconds / scale!.firstSync.seconds, 6);
    }
    expect(done.stdout).toMatch(/unchanged re-sync: [\d.]+ s \([\d.]+ % of the first sync\)/);
    expect(scale!.churn.eventsChanged).toBeGreaterThan(0);
    expect(scale!.churnResync.feedsParsed).toBeGreaterThan(0);
    for (const step of [scale!.firstSync, scale!.unchangedResync, scale!.unchangedResyncWarm, scale!.churnResync]) {
      expect(step.peakRssMb).toBeGreaterThan(0);
    }
  }, 240_000);

  it('npm run bench:upstream: the simulator\'s CPU a pass beside a bare server sending the same bytes', async () => {
    const done = await bench('bench:upstream', { BENCH_SCALE: '1', BENCH_PASSES: '2' });
    expect(done.stdout).toMatch(/scale 1: \d+ group feeds, 6 at a time, 2 passes of each server in turn/);
    expect(done.stdout).toMatch(/simulator: CPU \d+ ms a pass \(\d+ µs an answer\), the pass \d+ ms/);
    expect(done.stdout).toMatch(/bare server: CPU \d+ ms a pass/);
    expect(done.stdout).toMatch(/the simulator spent [\d.]+ times the bare server's CPU/);
    const report = await done.result<{ feeds: number; ratio: number; servers: { name: string; serverCpuSeconds: number; passes: unknown[] }[] }>('upstream-serving.json');
    expect(report.feeds).toBeGreaterThan(0);
    expect(report.servers.map((server) => server.name)).toEqual(['simulator', 'bare server']);
    for (const server of report.servers) expect(server.passes).toHaveLength(2);
    const [simulated, plain] = report.servers;
    expect(report.ratio).toBeCloseTo(simulated!.serverCpuSeconds / plain!.serverCpuSeconds, 6);
  }, 240_000);

  it('npm run bench:webhooks: signed deliveries a second against a bare undici loop in the same run, and one dead subscriber', async () => {
    const done = await bench('bench:webhooks', { BENCH_CHANGES: '20', BENCH_RATIO_ROUNDS: '1', BENCH_NEW_DEAD_ROUNDS: '1', BENCH_DEAD_ROUNDS: '1' });
    const out = done.stdout;
    expect(numberIn(out, /dispatcher \(claim, sign, POST, record\):\s+(\d+)/)).toBeGreaterThan(0);
    expect(numberIn(out, /bare undici POST loop, same concurrency:\s+(\d+)/)).toBeGreaterThan(0);
    expect(out).toMatch(/ratio, median of the pairs:\s+\d+ %/);
    expect(out).toMatch(/1 pairs, the dead host new to it:\s+\d+ % (slower|faster)/);
    expect(out).toMatch(/1 pairs, the same host known slow:\s+\d+ % (slower|faster)/);
  }, 240_000);

  it('npm run bench:webhook-store: the database side of dispatch alone', async () => {
    const done = await bench('bench:webhook-store', { BENCH_DELIVERIES: '200' });
    expect(numberIn(done.stdout, /per delivery:\s+(\d+) µs in all/)).toBeGreaterThan(0);
    expect(done.stdout).toMatch(/row updates:\s+\d+ of deliveries/);
  }, 240_000);
});
