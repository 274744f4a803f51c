/**
 * Each bench the README names runs from a fresh clone and reports what bench/README.md's table is made of.
 * Smoke runs, as small as each bench allows: they prove the commands work and report every figure, against
 * its baseline in the same run; what the figures are is for `bench/README.md`, never asserted here (timing
 * on a shared CI machine says nothing).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BUSY_SERVER_V8_FLAGS } from '../support/upstream-process.js';
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

interface ReplayCounts {
  replayed: number;
  forwarded: number;
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
  scales: {
    scale: number;
    events: number;
    upstreamWarmUp?: { planningUnit: number; feeds: number; cpuSecondsPerPass: number[] };
    firstSync: SyncStep;
    loopRightAfterFirstSync?: { seconds: number; shareOfFirst: number; megabytes: number };
    unchangedResync: SyncStep & { shareOfFirst: number };
    unchangedResyncWarm: SyncStep & { shareOfFirst: number };
    unchangedResyncsAfterIdle: (SyncStep & { shareOfFirst: number })[];
    warmRounds: { resyncs: (SyncStep & { shareOfFirst: number })[]; loops: { seconds: number; cpuSeconds: number; shareOfFirst: number }[] };
    restartedProcessResyncs: { seconds: number; cpuSeconds: number; mainThreadCpuSeconds: number; feedsParsed: number; feedsUnchanged: number; upstreamUnchanged: boolean }[];
    restartedProcessLoops: { seconds: number; cpuSeconds: number; mainThreadCpuSeconds: number; shareOfFirst: number }[];
    idleSeconds: number;
    bareFetch: { seconds: number; requests: number; megabytes: number };
    bareFetchAndHash: { seconds: number; megabytes: number };
    bareFetchAndHashAfterIdle: { seconds: number; megabytes: number }[];
    replayCounts?: { first: ReplayCounts; unchanged: ReplayCounts; churn: ReplayCounts };
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

  it('npm run bench:sync: first sync, unchanged re-syncs (first, warm and after idling) against bare fetches of the same addresses, churn re-sync, peak RSS and profiles', async () => {
    const done = await bench('bench:sync', { BENCH_SCALES: '1', BENCH_PROFILE: '1', BENCH_IDLE_SECONDS: '1', BENCH_WARM_ROUNDS: '2' });
    // The re-sync and the fetching and hashing loop profiled warm and after idling.
    for (const when of ['warm', 'after idling']) {
      expect(done.stdout).toContain(`profile of the sync process in an unchanged re-sync at scale 1, ${when}`);
      expect(done.stdout).toContain(`profile of the same process fetching and hashing the same answers, ${when}`);
    }
    // And the first run of each in a process started afresh.
    expect(done.stdout).toContain('profile of the first run of a sync process started afresh at scale 1');
    expect(done.stdout).toContain('profile of the first pass of the fetching and hashing loop in a process started afresh');
    const files = ['sync-unchanged-resync', 'bare-fetch-and-hash', 'sync-unchanged-resync-after-idle', 'bare-fetch-and-hash-after-idle'];
    for (const file of [...files, 'sync-restarted-run', 'bare-fetch-and-hash-restarted']) {
      expect((await done.result<{ nodes: unknown[] }>(`${file}-scale-1.cpuprofile`)).nodes.length).toBeGreaterThan(0);
    }
    const result = await done.result<SyncReport & { commit: string | null; syncProcessOptions: string[]; upstreamV8Flags: string[] }>('sync-scale.json');
    expect(result.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(result.syncProcessOptions).toContain('--max-old-space-size=384');
    const [scale] = result.scales;
    expect(scale?.scale).toBe(1);
    expect(scale!.events).toBeGreaterThan(0);
    expect(scale!.firstSync.feedsParsed).toBeGreaterThan(0);
    // The simulator warmed before the first sync on another term's feeds (the bench throws should the sync
    // have read that term), four passes by default.
    expect(done.stdout).toContain('upstream: warmed before the first sync by 4 passes over another term\'s group feeds');
    expect(done.stdout).toContain(`upstream's V8 flags: ${BUSY_SERVER_V8_FLAGS.join(' ')}`);
    expect(result.upstreamV8Flags).toEqual([...BUSY_SERVER_V8_FLAGS]);
    expect(scale!.upstreamWarmUp).toMatchObject({ feeds: scale!.firstSync.feedsParsed });
    expect(scale!.upstreamWarmUp!.cpuSecondsPerPass).toHaveLength(4);
    expect(done.stdout).toMatch(new RegExp(`upstream warmed on planning unit ${scale!.upstreamWarmUp!.planningUnit} \\(\\d+ feeds\\)`));
    // Unchanged, four times (two after idling): every feed skipped unparsed.
    expect(scale!.idleSeconds).toBe(1);
    expect(done.stdout).toContain('after idling 1 s before each, in the order re-sync, loop, loop, re-sync');
    expect(scale!.unchangedResyncsAfterIdle).toHaveLength(2);
    for (const resync of [scale!.unchangedResync, scale!.unchangedResyncWarm, ...scale!.unchangedResyncsAfterIdle]) {
      // Known unchanged from the fingerprint of every answer, so nothing was loaded, built or compared.
      expect(resync.upstreamUnchanged).toBe(true);
      expect(resync.feedsParsed).toBe(0);
      expect(resync.feedsUnchanged).toBe(scale!.firstSync.feedsParsed);
    }
    // Warm, in rounds of re-sync, loop, loop, re-sync: two of each a round, every re-sync unchanged.
    expect(done.stdout).toContain('warm, in 2 rounds of re-sync, loop, loop, re-sync');
    expect(done.stdout).toMatch(/the median re-sync took [\d.]+ times the median loop's time/);
    expect(scale!.warmRounds.resyncs).toHaveLength(4);
    expect(scale!.warmRounds.loops).toHaveLength(4);
    for (const resync of scale!.warmRounds.resyncs) expect(resync).toMatchObject({ upstreamUnchanged: true, feedsParsed: 0, feedsUnchanged: scale!.firstSync.feedsParsed });
    for (const loop of scale!.warmRounds.loops) expect(loop.shareOfFirst).toBeGreaterThan(0);
    // Sync processes started afresh found the stored snapshot current: their first runs are unchanged re-syncs,
    // measured around the first passes of the loop in processes of their own.
    expect(done.stdout).toContain('in processes started afresh, in the order sync, loop, loop, sync');
    expect(done.stdout).toContain('the first pass of the fetching and hashing loop in a process started afresh');
    expect(scale!.restartedProcessResyncs).toHaveLength(2);
    for (const restarted of scale!.restartedProcessResyncs) {
      expect(restarted).toMatchObject({ upstreamUnchanged: true, feedsParsed: 0, feedsUnchanged: scale!.firstSync.feedsParsed });
      expect(restarted.cpuSeconds).toBeGreaterThan(0);
    }
    expect(scale!.restartedProcessLoops).toHaveLength(2);
    for (const loop of scale!.restartedProcessLoops) expect(loop.cpuSeconds).toBeGreaterThan(0);
    // Each with its main thread's part of that CPU (counted in 10 ms ticks, so possibly 0 in a run this small).
    for (const run of [...scale!.restartedProcessResyncs, ...scale!.restartedProcessLoops]) {
      expect(run.mainThreadCpuSeconds).toBeGreaterThanOrEqual(0);
      expect(run.mainThreadCpuSeconds).toBeLessThanOrEqual(run.cpuSeconds + 0.01);
    }
    expect(done.stdout).toMatch(/the first run of a sync process started afresh \(as after a restart\): [\d.]+ s \(CPU [\d.]+ s, the main thread's [\d.]+ s;/);
    // Every pass of the loops, warm and after idling, read every answer the re-syncs read.
    expect(scale!.bareFetch.requests).toBeGreaterThan(scale!.firstSync.feedsParsed);
    expect(scale!.bareFetch.megabytes).toBeGreaterThan(0);
    expect(scale!.bareFetchAndHashAfterIdle).toHaveLength(2);
    for (const loop of [scale!.bareFetchAndHash, ...scale!.bareFetchAndHashAfterIdle]) expect(loop.megabytes).toBe(scale!.bareFetch.megabytes);
    expect(scale!.churn.eventsChanged).toBeGreaterThan(0);
    expect(scale!.churnResync.feedsParsed).toBeGreaterThan(0);
    for (const step of [scale!.firstSync, scale!.unchangedResync, scale!.unchangedResyncWarm, ...scale!.unchangedResyncsAfterIdle, scale!.churnResync]) {
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

  it('BENCH_UPSTREAM_VALIDATORS=1 BENCH_LOOP_RIGHT_AFTER=1 npm run bench:sync: an upstream whose feeds carry validators, and the loop right after the first sync', async () => {
    const done = await bench('bench:sync', { BENCH_SCALES: '1', BENCH_UPSTREAM_VALIDATORS: '1', BENCH_LOOP_RIGHT_AFTER: '1', BENCH_IDLE_SECONDS: '1', BENCH_WARM_ROUNDS: '1' });
    expect(done.stdout).toContain('upstream: group feeds with ETags, 304 when unchanged');
    const result = await done.result<SyncReport & { upstreamValidators: boolean; loopRightAfter: boolean }>('sync-scale.json');
    const [scale] = result.scales;
    expect(scale!.unchangedResync.feedsParsed).toBe(0);
    expect(scale!.unchangedResync.feedsUnchanged).toBe(scale!.firstSync.feedsParsed);
    expect(result.upstreamValidators).toBe(true);
    // The loop right after the first sync read every answer the later loops read, and has its share of the first.
    expect(result.loopRightAfter).toBe(true);
    expect(done.stdout).toMatch(/fetching and hashing right after the first sync \(the re-syncs below follow it\): [\d.]+ s/);
    expect(scale!.loopRightAfterFirstSync!.megabytes).toBe(scale!.bareFetch.megabytes);
    expect(scale!.loopRightAfterFirstSync!.shareOfFirst).toBeCloseTo(scale!.loopRightAfterFirstSync!.seconds / scale!.firstSync.seconds, 6);
  }, 240_000);

  it('BENCH_BUSY_UPSTREAM=1 BENCH_RESTART_ROUNDS=2 npm run bench:sync: the upstream kept busy while the sync process idles, rounds of restarts', async () => {
    const env = { BENCH_SCALES: '1', BENCH_BUSY_UPSTREAM: '1', BENCH_IDLE_SECONDS: '2', BENCH_WARM_ROUNDS: '1', BENCH_RESTART_ROUNDS: '2' };
    const done = await bench('bench:sync', env);
    expect(done.stdout).toContain('upstream: kept busy by a process of its own during every pause');
    const result = await done.result<SyncReport & { busyUpstream: boolean; syncProcessOptions: string[]; scales: { busyUpstreamPasses: number[] }[] }>('sync-scale.json');
    expect(result.busyUpstream).toBe(true);
    const [scale] = result.scales;
    // The four pauses after idling each saw the upstream read whole at least once.
    expect(scale!.busyUpstreamPasses).toHaveLength(4);
    for (const passes of scale!.busyUpstreamPasses) expect(passes).toBeGreaterThanOrEqual(1);
    for (const resync of scale!.unchangedResyncsAfterIdle) expect(resync.upstreamUnchanged).toBe(true);
    for (const loop of scale!.bareFetchAndHashAfterIdle) expect(loop.megabytes).toBe(scale!.bareFetch.megabytes);
    // Two rounds of sync, loop, loop, sync in processes started afresh, told by their medians.
    expect(done.stdout).toContain('in processes started afresh, in 2 rounds of sync, loop, loop, sync');
    expect(done.stdout).toMatch(/the first run of a sync process started afresh, median of 4: [\d.]+ s/);
    expect(done.stdout).toMatch(/the median restarted sync run took [\d.]+ times the median restarted loop's time/);
    expect(done.stdout).toMatch(/their main threads' CPU, medians: the sync's [\d.]+ of [\d.]+ s, the loop's [\d.]+ of [\d.]+ s/);
    expect(scale!.restartedProcessResyncs).toHaveLength(4);
    for (const restarted of scale!.restartedProcessResyncs) expect(restarted.upstreamUnchanged).toBe(true);
    expect(scale!.restartedProcessLoops).toHaveLength(4);
  }, 240_000);

  it('BENCH_UPSTREAM_REPLAY=1 npm run bench:sync: unchanged re-syncs against recorded answers, the churn re-sync against the simulator', async () => {
    const done = await bench('bench:sync', { BENCH_SCALES: '1', BENCH_UPSTREAM_REPLAY: '1', BENCH_IDLE_SECONDS: '1', BENCH_WARM_ROUNDS: '1' });
    expect(done.stdout).toContain('upstream: the simulator behind a replaying proxy');
    const result = await done.result<SyncReport & { upstreamReplay: boolean }>('sync-scale.json');
    expect(result.upstreamReplay).toBe(true);
    const [scale] = result.scales;
    expect(scale!.unchangedResyncWarm.upstreamUnchanged).toBe(true);
    expect(scale!.unchangedResyncWarm.feedsUnchanged).toBe(scale!.firstSync.feedsParsed);
    // The first sync and the churn re-sync read the simulator; the unchanged re-syncs and the bare fetches only
    // the recorded answers.
    const counts = scale!.replayCounts!;
    expect(counts.first).toEqual({ replayed: 0, forwarded: expect.any(Number) });
    expect(counts.first.forwarded).toBeGreaterThanOrEqual(scale!.bareFetch.requests);
    expect(counts.unchanged.forwarded).toBe(0);
    // Each of the eight re-syncs (two warm in the round, two in processes of their own) and the ten bare passes
    // (two fetching, eight hashing too, two in the round and two in processes of their own) read every address once.
    expect(counts.unchanged.replayed).toBe(18 * scale!.bareFetch.requests);
    expect(counts.churn).toEqual({ replayed: 0, forwarded: expect.any(Number) });
    expect(counts.churn.forwarded).toBeGreaterThan(0);
    // Recording again before the churn: the churn re-sync saw the simulator's changes, not the recorded answers.
    expect(scale!.churn.eventsChanged).toBeGreaterThan(0);
    expect(scale!.churnResync.feedsParsed).toBeGreaterThan(0);
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
