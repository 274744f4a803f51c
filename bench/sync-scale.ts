/**
 * Sync at scale (bench/README.md, "Sync at scale"): for each scale of BENCH_SCALES (default 10,100), the first
 * sync of the simulator university, publishing its outbox, two unchanged re-syncs back to back (the first runs
 * its code for the first time in the process, the second with it compiled), bare loops fetching, and fetching
 * and hashing, what they fetched (their baselines), unchanged re-syncs and the fetching and hashing loop after
 * the process idled as a running service does between runs (two of each, in the order A B B A), the first run
 * of a sync process started afresh (an unchanged re-sync, as after a restart) beside the first pass of the loop
 * in a process started afresh (two of each, A B B A), and a re-sync after the simulator changed about one
 * percent of the events. The warm re-sync is also measured in rounds beside the loop (A B B A each), so that
 * the comparison of the two rests on medians rather than on one run of each.
 * Each scale runs in a child process of its own, so the peak RSS of one is not inherited by the next; the
 * simulator runs in a further child process, so the RSS is the sync's own. The sync writes to a fresh database
 * that is dropped after.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { topics } from '@timetable/contracts';
import type { Knex } from '@timetable/db';
import { createLogger } from '@timetable/observability';
import { openServiceStore } from '@timetable/service-kit';
import { createSyncService, SYNC_CONNECTIONS_KEPT, SYNC_NODE_OPTIONS, SYNC_SCHEMA, syncMigrations, type SyncRunResult } from '@timetable/sync';
import { UPSTREAM_CONCURRENCY } from '@timetable/sync/testing';
import { bareFetch, hashesLastRead } from './support/bare-fetch.js';
import { formatProfile, profileWhile, type ProfileSummary } from './support/cpu-profile.js';
import { median } from './support/median.js';
import { PublishOnlyBus } from './support/publish-only-bus.js';
import type { ReplayCounts } from './support/replaying-upstream.js';
import { resultsDir } from './support/results-dir.js';
import { assertWarmedElsewhere, warmSimulator, type UpstreamWarmUp } from './support/warm-upstream.js';
import { BUSY_SERVER_V8_FLAGS, freePort, startSimulatorProcess, startUpstreamProcess, type UpstreamProcess } from './support/upstream-process.js';

const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const repoRoot = path.resolve(import.meta.dirname, '..');
/** The share of events the churn step aims to change... */
const CHURN_SHARE = 0.01;
/** ...where one simulator change (a moved, cancelled or added occurrence, a renamed room, ...) changes about two events. */
const EVENTS_PER_CHURN_OPERATION = 2;
/** The simulator applies at most this many changes per request. */
const CHURN_PER_REQUEST = 1000;
const RESULT_PREFIX = 'SYNC_SCALE_RESULT ';
const SYNC_TIME_ZONE = 'Europe/Berlin';
/**
 * What each scale's process runs with: --expose-gc (each step starts after a full collection, so its peak is
 * less of what earlier steps left), the sync's Node options as deployed (its heap cap), and this process's own
 * (tsx). The processes started afresh inherit them. The
 * simulator, a process of its own, runs without them.
 */
const SYNC_PROCESS_OPTIONS = ['--expose-gc', ...SYNC_NODE_OPTIONS, ...process.execArgv];
/**
 * BENCH_UPSTREAM_VALIDATORS=1: the simulator's group feeds carry ETags and answer 304 to a request naming the
 * current one (StarPlan sends no validators), to measure what conditional requests save where an upstream
 * honours them.
 */
const UPSTREAM_VALIDATORS = process.env.BENCH_UPSTREAM_VALIDATORS === '1';
/**
 * BENCH_PROFILE=1: an unchanged re-sync and a pass of the fetching and hashing loop under the CPU profiler, back
 * to back after the warm steps, again each after a pause of its own after the measured pauses, and the first
 * run of each in a process started afresh (the profiler slows what it watches, so it counts in no figure):
 * where the sync's own time goes when nothing changed, beside where the least a re-sync can do goes, warm,
 * after idling and after a start. The churn re-sync then runs after them.
 */
const PROFILE = process.env.BENCH_PROFILE === '1';
/**
 * BENCH_UPSTREAM_REPLAY=1: the sync reads the simulator through a replaying proxy (support/replaying-upstream.ts).
 * The first sync and the churn re-sync read the simulator through it and it records; the unchanged re-syncs and
 * the bare fetches get its recorded answers from memory, as from an upstream that keeps its pages and answers
 * at once, so what they cost is the sync's own work rather than the simulator's serving rate.
 */
const UPSTREAM_REPLAY = process.env.BENCH_UPSTREAM_REPLAY === '1';
/**
 * BENCH_IDLE_SECONDS (default 60): how long the process idles before each step after idling, as a running
 * service idles between runs (SYNC_INTERVAL_SECONDS, 300 by default). Back-to-back runs flatter it: while idle,
 * V8 gives back memory it then has to find again, the connections to the upstream and the database close, and
 * the upstream and the machine idle too.
 */
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 60);
if (!(IDLE_SECONDS >= 0)) throw new Error(`BENCH_IDLE_SECONDS must be a number of seconds, got ${process.env.BENCH_IDLE_SECONDS}`);
/**
 * BENCH_WARM_ROUNDS (default 3): rounds of warm re-sync, loop, loop, re-sync, back to back after the warm steps.
 * At scale 10 one step lasts a quarter of a second and two runs of the same step differ by a fifth, so one run
 * of each tells little about which costs more; the medians of several, taken in turn, do.
 */
const WARM_ROUNDS = Number(process.env.BENCH_WARM_ROUNDS ?? 3);
if (!(Number.isInteger(WARM_ROUNDS) && WARM_ROUNDS >= 1)) throw new Error(`BENCH_WARM_ROUNDS must be a positive integer, got ${process.env.BENCH_WARM_ROUNDS}`);
/**
 * BENCH_BUSY_UPSTREAM=1: during every pause a process of its own keeps reading the upstream
 * (support/busy-upstream.ts), so the upstream keeps answering while the sync process idles, as in production:
 * whether what a pause costs is the sync process's own, or that of the upstream and the machine, which idle
 * with it in the plain run (the busy process keeps the machine partly awake too, so it does not tell those two
 * apart).
 */
const BUSY_UPSTREAM = process.env.BENCH_BUSY_UPSTREAM === '1';
/**
 * BENCH_LOOP_RIGHT_AFTER=1: a pass of the fetching and hashing loop right after the first sync, before the
 * unchanged re-syncs (which then follow it rather than the first sync): what reading the answers alone costs
 * there, where the upstream serves its kept answers for the first time. A plain run's first re-sync and this
 * loop, each right after its own first sync, compare across two runs; in one run, whichever came first would
 * warm the upstream for the other.
 */
const LOOP_RIGHT_AFTER = process.env.BENCH_LOOP_RIGHT_AFTER === '1';
/**
 * BENCH_UPSTREAM_WARM_UP_PASSES (default 4; 0 as in the runs before 2026-12-05): passes over another term's
 * group feeds before the first sync (support/warm-upstream.ts), so that the simulator serves the sync as a
 * server long running would, not as a process still compiling its own code.
 */
const UPSTREAM_WARM_UP_PASSES = Number(process.env.BENCH_UPSTREAM_WARM_UP_PASSES ?? 4);
if (!(Number.isInteger(UPSTREAM_WARM_UP_PASSES) && UPSTREAM_WARM_UP_PASSES >= 0)) {
  throw new Error(`BENCH_UPSTREAM_WARM_UP_PASSES must be a whole number, got ${process.env.BENCH_UPSTREAM_WARM_UP_PASSES}`);
}
/** The warm-up reads at most this many feeds: as many as the sync's whole term at scale 10. */
const UPSTREAM_WARM_UP_FEEDS = 720;
/**
 * BENCH_UPSTREAM_V8_FLAGS (space-separated; set and empty: V8's defaults, as in the runs before 2026-12-05): the
 * simulator's V8 flags, by default those that keep it serving after the bench's pauses as a busy server would
 * (support/upstream-process.ts). The pauses are the sync's; StarPlan, answering other clients, does not idle with it.
 */
const UPSTREAM_V8_FLAGS: readonly string[] = process.env.BENCH_UPSTREAM_V8_FLAGS === undefined ? BUSY_SERVER_V8_FLAGS : process.env.BENCH_UPSTREAM_V8_FLAGS.split(/\s+/).filter(Boolean);
/**
 * BENCH_RESTART_ROUNDS (default 1): rounds of sync, loop, loop, sync in processes started afresh. Two first runs
 * of the same code differ by up to a half, more than warm runs do, so several rounds give medians to compare.
 */
const RESTART_ROUNDS = Number(process.env.BENCH_RESTART_ROUNDS ?? 1);
if (!(Number.isInteger(RESTART_ROUNDS) && RESTART_ROUNDS >= 1)) throw new Error(`BENCH_RESTART_ROUNDS must be a positive integer, got ${process.env.BENCH_RESTART_ROUNDS}`);
if (UPSTREAM_REPLAY && UPSTREAM_VALIDATORS) throw new Error('BENCH_UPSTREAM_REPLAY and BENCH_UPSTREAM_VALIDATORS do not go together');
// The busy passes would count among the replayed answers of the unchanged phase.
if (UPSTREAM_REPLAY && BUSY_UPSTREAM) throw new Error('BENCH_UPSTREAM_REPLAY and BENCH_BUSY_UPSTREAM do not go together');

interface Step {
  /** RSS when the step began, after a full garbage collection: what earlier steps left behind. */
  startRssMb: number;
  seconds: number;
  /** User + system CPU seconds of the sync process during the step (less noisy than wall time on a shared machine). */
  cpuSeconds: number;
  /** CPU seconds the simulator (the upstream, another machine in production) spent serving the step. */
  upstreamCpuSeconds: number;
  /** Highest RSS sampled every 50 ms during the step. */
  peakRssMb: number;
  /** The process's RSS high-water mark at the end of the step (kernel-tracked, never decreases). */
  maxRssMb: number;
}

type RunStep = Step & {
  status: string;
  created: number;
  updated: number;
  deleted: number;
  feedsParsed: number;
  feedsUnchanged: number;
  upstreamUnchanged: boolean;
};

/** A step's wall and CPU time as shares of the first sync's. */
interface Shares {
  shareOfFirst: number;
  cpuShareOfFirst: number;
}

/** The first run of a process started for it (support/restarted-process-run.ts). */
interface RestartedRun extends Shares {
  seconds: number;
  /** The process's, helper threads included. */
  cpuSeconds: number;
  /** Of cpuSeconds, the main thread's; the rest is V8's helper threads' (its compilers, its collector). */
  mainThreadCpuSeconds: number;
  upstreamCpuSeconds: number;
}

interface RestartedSyncRun extends RestartedRun {
  status: string;
  feedsParsed: number;
  feedsUnchanged: number;
  upstreamUnchanged: boolean;
}

interface ScaleReport {
  scale: number;
  events: number;
  entities: number;
  firstSync: RunStep;
  publishOutbox: Step;
  /** With BENCH_LOOP_RIGHT_AFTER=1: a pass of the fetching and hashing loop right after the first sync. */
  loopRightAfterFirstSync?: Step & Shares & { megabytes: number };
  /**
   * The first unchanged re-sync after the first sync (after loopRightAfterFirstSync, when there is one): its
   * code paths run for the first time in the process.
   */
  unchangedResync: RunStep & Shares;
  /** The next one, right after: the same work, its code compiled. */
  unchangedResyncWarm: RunStep & Shares;
  /** Two more, each after the process idled for `idleSeconds`, as a running service's later runs start. */
  unchangedResyncsAfterIdle: (RunStep & Shares)[];
  /** The same addresses fetched by a bare loop, right after the unchanged re-syncs (its second pass, warm too). */
  bareFetch: Step & { requests: number; megabytes: number };
  /** The same loop hashing each answer as the sync does: the least a re-sync can do without validators. */
  bareFetchAndHash: Step & Shares & { megabytes: number };
  /** `BENCH_WARM_ROUNDS` rounds of warm re-sync, loop, loop, re-sync, back to back: two of each a round. */
  warmRounds: { resyncs: (RunStep & Shares)[]; loops: (Step & Shares)[] };
  /**
   * That loop twice more, each after the same pause: the baseline of the re-syncs after idling, measured
   * between them (re-sync, loop, loop, re-sync), so a drift of the machine's speed weighs on both alike.
   */
  bareFetchAndHashAfterIdle: (Step & Shares & { megabytes: number })[];
  idleSeconds: number;
  /**
   * The first run of a sync process started for it, right after the steps above: an unchanged re-sync whose
   * code runs for the first time, as a restarted sync's first run (support/restarted-process-run.ts). Two a
   * round (`BENCH_RESTART_ROUNDS`, 1 by default), around two first passes of the fetching and hashing loop in
   * processes started for them (sync, loop, loop, sync): whether what a first run costs is the sync's own, or
   * what any client started afresh pays.
   */
  restartedProcessResyncs: RestartedSyncRun[];
  restartedProcessLoops: RestartedRun[];
  /** The passes over another term that warmed the simulator before the first sync (BENCH_UPSTREAM_WARM_UP_PASSES). */
  upstreamWarmUp?: UpstreamWarmUp;
  /** With BENCH_BUSY_UPSTREAM=1: the passes over every address the upstream served during each pause. */
  busyUpstreamPasses?: number[];
  /**
   * With BENCH_UPSTREAM_REPLAY=1, the replaying proxy's GETs in each phase: answered from memory or forwarded to
   * the simulator. The unchanged phase (the unchanged re-syncs and the bare fetches, measured or profiled) should
   * forward none, the churn re-sync replay none.
   */
  replayCounts?: { first: ReplayCounts; unchanged: ReplayCounts; churn: ReplayCounts };
  churn: { operations: number; eventsChanged: number; shareOfEvents: number };
  churnResync: RunStep & { shareOfFirst: number };
  /**
   * With BENCH_PROFILE=1: the sync process in an unchanged re-sync and in a pass of the loop, warm and after
   * idling, and the first run of a sync process and the loop's first pass, each in a process started afresh.
   */
  profiles?: {
    resync: ProfileSummary;
    loop: ProfileSummary;
    resyncAfterIdle: ProfileSummary;
    loopAfterIdle: ProfileSummary;
    restartedSync: ProfileSummary;
    restartedLoop: ProfileSummary;
  };
}

function startReplayingUpstream(port: number, simulatorPort: number): Promise<UpstreamProcess> {
  const env = { REPLAY_PORT: String(port), REPLAY_ORIGIN: `http://127.0.0.1:${simulatorPort}` };
  return startUpstreamProcess('replaying upstream', 'bench/support/replaying-upstream.ts', env, `http://127.0.0.1:${port}/splan/json?m=getpus`);
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

const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

/** Duration, CPU time and RSS of one step, which starts after a full garbage collection. */
async function measure<T>(work: () => Promise<T>, upstreamCpuSeconds: () => Promise<number>): Promise<{ result: T; step: Step }> {
  (globalThis as { gc?: () => void }).gc?.();
  // memoryUsage.rss() reads the RSS alone; memoryUsage() also walks the heap's spaces, which the sampler would
  // add to the CPU time of the step it watches (about half a millisecond a call with the first sync's heap).
  const startRssMb = mb(process.memoryUsage.rss());
  let peak = process.memoryUsage.rss();
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
  const cpu = process.cpuUsage();
  const upstreamCpuBefore = await upstreamCpuSeconds();
  const started = performance.now();
  try {
    const result = await work();
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const upstreamCpu = (await upstreamCpuSeconds()) - upstreamCpuBefore;
    peak = Math.max(peak, process.memoryUsage.rss());
    // resourceUsage().maxRSS is in kilobytes.
    const maxRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
    return {
      result,
      step: { startRssMb, seconds, cpuSeconds: (used.user + used.system) / 1e6, upstreamCpuSeconds: upstreamCpu, peakRssMb: mb(peak), maxRssMb },
    };
  } finally {
    clearInterval(sampler);
  }
}

function shareOfFirst<T extends Step>(step: T, first: Step): T & Shares {
  return { ...step, shareOfFirst: step.seconds / first.seconds, cpuShareOfFirst: step.cpuSeconds / first.cpuSeconds };
}

function runStep(step: Step, result: SyncRunResult): RunStep {
  const { status, created, updated, deleted, feedsParsed, feedsUnchanged, upstreamUnchanged } = result;
  return { ...step, status, created, updated, deleted, feedsParsed, feedsUnchanged, upstreamUnchanged };
}

/** One scale, in this process: prints its report as one line for the parent. */
async function benchOneScale(scale: number): Promise<void> {
  const logger = createLogger({ name: 'sync-bench', level: 'warn' });
  const port = await freePort();
  const simulator = await startSimulatorProcess(port, scale, UPSTREAM_VALIDATORS, UPSTREAM_V8_FLAGS);
  const replayPort = UPSTREAM_REPLAY ? await freePort() : undefined;
  const replay = replayPort === undefined ? undefined : await startReplayingUpstream(replayPort, port).catch((error: unknown) => {
    simulator.stop();
    throw error;
  });
  // The upstream's CPU: the simulator's, and the replaying proxy's in front of it.
  const upstreamCpuSeconds = async () => (await simulator.cpuSeconds()) + (replay ? await replay.cpuSeconds() : 0);
  const measureStep = <T>(work: () => Promise<T>) => measure(work, upstreamCpuSeconds);
  // Where the sync reads; the simulator's own admin routes are asked directly.
  const simulatorUrl = `http://127.0.0.1:${replayPort ?? port}/splan`;
  const simulatorAdminUrl = `http://127.0.0.1:${port}/splan/__admin`;
  // Switches the replaying proxy's mode and returns its counts of the phase that ends (since the last switch).
  let countsBefore: ReplayCounts = { replayed: 0, forwarded: 0 };
  const replayMode = async (mode: 'record' | 'replay' | 'end'): Promise<ReplayCounts | undefined> => {
    if (replayPort === undefined) return undefined;
    const counted = (await (await fetch(`http://127.0.0.1:${replayPort}/__replay/counts`)).json()) as ReplayCounts;
    if (mode !== 'end') {
      const response = await fetch(`http://127.0.0.1:${replayPort}/__replay/${mode}`, { method: 'POST' });
      if (response.status !== 204) throw new Error(`the replaying upstream answered ${response.status} to ${mode}`);
    }
    const phase = { replayed: counted.replayed - countsBefore.replayed, forwarded: counted.forwarded - countsBefore.forwarded };
    countsBefore = counted;
    return phase;
  };
  const database = `timetable_bench_${randomBytes(4).toString('hex')}`;
  await withAdmin((client) => client.query(`create database ${database}`));
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  let store: Knex | undefined;
  try {
    // Opened as the service opens it: migrated, its kept connections open.
    const knex = (store = await openServiceStore({
      connectionString: url.toString(),
      schema: SYNC_SCHEMA,
      migrations: syncMigrations,
      logger,
      poolMax: 5,
      connectionsKept: SYNC_CONNECTIONS_KEPT,
    }));
    const sync = await createSyncService({
      knex,
      // Kafka in the distributed mode: what is published leaves the process (support/publish-only-bus.ts).
      bus: new PublishOnlyBus(),
      logger,
      upstreamBaseUrl: simulatorUrl,
      intervalSeconds: 3600,
      timeZone: SYNC_TIME_ZONE,
      fetchTimeoutMs: 60_000,
    });
    const count = async (entityType?: string) => {
      const query = knex('snapshot_entities').count<{ count: string }[]>({ count: '*' });
      if (entityType) query.where({ entity_type: entityType });
      return Number((await query)[0]?.count ?? 0);
    };
    const warmUp = UPSTREAM_WARM_UP_PASSES > 0 ? await warmSimulator(`http://127.0.0.1:${port}/splan`, UPSTREAM_WARM_UP_PASSES, UPSTREAM_WARM_UP_FEEDS, simulator.cpuSeconds) : undefined;
    const first = await measureStep(() => sync.runOnce());
    const publish = await measureStep(() => sync.relay.drain());
    const firstCounts = await replayMode('replay');
    const hashesAfterFirst = LOOP_RIGHT_AFTER ? await hashesLastRead(knex, simulatorUrl) : undefined;
    const loopRightAfter = hashesAfterFirst && (await measureStep(() => bareFetch([...hashesAfterFirst.keys()], UPSTREAM_CONCURRENCY, { timeZone: SYNC_TIME_ZONE })));
    const unchanged = await measureStep(() => sync.runOnce());
    const unchangedWarm = await measureStep(() => sync.runOnce());
    // Read after the re-syncs in a plain run, so that nothing but the first sync comes between it and them.
    const storedHashes = await hashesLastRead(knex, simulatorUrl);
    const addresses = [...storedHashes.keys()];
    if (warmUp) assertWarmedElsewhere(warmUp, addresses);
    const fetchAndHash = () => bareFetch(addresses, UPSTREAM_CONCURRENCY, { timeZone: SYNC_TIME_ZONE });
    await bareFetch(addresses, UPSTREAM_CONCURRENCY);
    const bare = await measureStep(() => bareFetch(addresses, UPSTREAM_CONCURRENCY));
    // The unmeasured pass checks that the loop hashes every answer as the sync did.
    const differing: string[] = [];
    await bareFetch(addresses, UPSTREAM_CONCURRENCY, {
      timeZone: SYNC_TIME_ZONE,
      onHash: (address, hash) => void (storedHashes.get(address) !== hash && differing.push(address)),
    });
    if (differing.length > 0) throw new Error(`the bare loop hashed ${differing.length} answers unlike the sync, e.g. ${differing[0]}`);
    const resync = () => sync.runOnce();
    const bareAndHash = await measureStep(fetchAndHash);
    const warmRounds: ScaleReport['warmRounds'] = { resyncs: [], loops: [] };
    const warmResync = async () => {
      const { step, result } = await measureStep(resync);
      warmRounds.resyncs.push(shareOfFirst(runStep(step, result), first.step));
    };
    const warmLoop = async () => warmRounds.loops.push(shareOfFirst((await measureStep(fetchAndHash)).step, first.step));
    for (let round = 0; round < WARM_ROUNDS; round += 1) {
      await warmResync();
      await warmLoop();
      await warmLoop();
      await warmResync();
    }
    const profile = async (name: string, work: () => Promise<unknown>) =>
      (await profileWhile(path.join(resultsDir, `${name}-scale-${scale}.cpuprofile`), work, 20)).summary;
    const warmProfiles = PROFILE ? { resync: await profile('sync-unchanged-resync', resync), loop: await profile('bare-fetch-and-hash', fetchAndHash) } : undefined;
    // After idling, the re-sync and the least a re-sync can do (what idling costs whoever fetches, rather than
    // the sync alone), each after a pause of its own, in the order A B B A.
    const busyPasses: number[] = [];
    const pause = BUSY_UPSTREAM ? await busyPause(addresses, busyPasses) : () => sleep(IDLE_SECONDS * 1000);
    const idled = async <T>(work: () => Promise<T>) => {
      await pause();
      return measureStep(work);
    };
    const resyncIdled1 = await idled(resync);
    const loopIdled1 = await idled(fetchAndHash);
    const loopIdled2 = await idled(fetchAndHash);
    const resyncIdled2 = await idled(resync);
    const restart = restartedRunner(url.toString(), simulatorUrl, upstreamCpuSeconds, first.step, await addressesFile(addresses));
    const restartedResyncs: RestartedSyncRun[] = [];
    const restartedLoops: RestartedRun[] = [];
    for (let round = 0; round < RESTART_ROUNDS; round += 1) {
      restartedResyncs.push(await restart.sync());
      restartedLoops.push(await restart.loop(), await restart.loop());
      restartedResyncs.push(await restart.sync());
    }
    const profileIdled = async (name: string, work: () => Promise<unknown>) => {
      await pause();
      return profile(name, work);
    };
    const profiles = warmProfiles && {
      ...warmProfiles,
      resyncAfterIdle: await profileIdled('sync-unchanged-resync-after-idle', resync),
      loopAfterIdle: await profileIdled('bare-fetch-and-hash-after-idle', fetchAndHash),
      restartedSync: await restart.profiledSync(path.join(resultsDir, `sync-restarted-run-scale-${scale}.cpuprofile`)),
      restartedLoop: await restart.profiledLoop(path.join(resultsDir, `bare-fetch-and-hash-restarted-scale-${scale}.cpuprofile`)),
    };
    const unchangedCounts = await replayMode('record');
    const events = await count('event');
    const entities = await count();

    const operations = Math.max(1, Math.round((events * CHURN_SHARE) / EVENTS_PER_CHURN_OPERATION));
    for (let done = 0, seed = 1; done < operations; done += CHURN_PER_REQUEST, seed += 1) {
      const response = await fetch(`${simulatorAdminUrl}/churn`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ seed, count: Math.min(CHURN_PER_REQUEST, operations - done) }),
      });
      if (!response.ok) throw new Error(`churn answered HTTP ${response.status}`);
    }
    const churned = await measureStep(() => sync.runOnce());
    const churnCounts = await replayMode('end');
    const eventsChanged = await knex('outbox')
      .where({ topic: topics.changes.name })
      .whereRaw(`value->>'syncRunId' = ?`, [churned.result.syncRunId])
      .whereRaw(`value->>'entityType' = 'event'`)
      .count<{ count: string }[]>({ count: '*' });
    await sync.relay.drain();

    const report: ScaleReport = {
      scale,
      events,
      entities,
      ...(warmUp ? { upstreamWarmUp: warmUp } : {}),
      firstSync: runStep(first.step, first.result),
      publishOutbox: publish.step,
      ...(loopRightAfter ? { loopRightAfterFirstSync: { ...shareOfFirst(loopRightAfter.step, first.step), megabytes: loopRightAfter.result / 2 ** 20 } } : {}),
      unchangedResync: shareOfFirst(runStep(unchanged.step, unchanged.result), first.step),
      unchangedResyncWarm: shareOfFirst(runStep(unchangedWarm.step, unchangedWarm.result), first.step),
      unchangedResyncsAfterIdle: [resyncIdled1, resyncIdled2].map(({ step, result }) => shareOfFirst(runStep(step, result), first.step)),
      bareFetch: { ...bare.step, requests: addresses.length, megabytes: bare.result / 2 ** 20 },
      bareFetchAndHash: { ...shareOfFirst(bareAndHash.step, first.step), megabytes: bareAndHash.result / 2 ** 20 },
      bareFetchAndHashAfterIdle: [loopIdled1, loopIdled2].map(({ step, result }) => ({ ...shareOfFirst(step, first.step), megabytes: result / 2 ** 20 })),
      idleSeconds: IDLE_SECONDS,
      ...(BUSY_UPSTREAM ? { busyUpstreamPasses: busyPasses } : {}),
      warmRounds,
      restartedProcessResyncs: restartedResyncs,
      restartedProcessLoops: restartedLoops,
      churn: {
        operations,
        eventsChanged: Number(eventsChanged[0]?.count ?? 0),
        shareOfEvents: Number(eventsChanged[0]?.count ?? 0) / events,
      },
      churnResync: { ...runStep(churned.step, churned.result), shareOfFirst: churned.step.seconds / first.step.seconds },
      profiles,
      ...(firstCounts && unchangedCounts && churnCounts ? { replayCounts: { first: firstCounts, unchanged: unchangedCounts, churn: churnCounts } } : {}),
    };
    process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(report)}\n`);
  } finally {
    await store?.destroy();
    await withAdmin((client) => client.query(`drop database if exists ${database} with (force)`));
    replay?.stop();
    simulator.stop();
  }
}

/**
 * A pause during which a process of its own keeps the upstream serving: it lasts IDLE_SECONDS from the end of
 * that process's first pass (its start-up and first pass come on top), and the process has exited when the
 * pause ends. Each pause's count of passes is added to `passes`.
 */
async function busyPause(addresses: readonly string[], passes: number[]): Promise<() => Promise<void>> {
  const file = await addressesFile(addresses);
  return async () => {
    const child = spawn(process.execPath, ['--conditions=@timetable/source', '--import', 'tsx', 'bench/support/busy-upstream.ts'], {
      cwd: repoRoot,
      env: { ...process.env, BUSY_ADDRESSES: file },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const stop = () => child.kill('SIGTERM');
    process.once('exit', stop);
    // 'close' comes after the child's output has been read to its end.
    const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
    const lines: { ready?: boolean; passes?: number }[] = [];
    let ready: () => void = () => undefined;
    const firstPass = new Promise<void>((resolve) => (ready = resolve));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const message = JSON.parse(line) as { ready?: boolean; passes?: number };
      lines.push(message);
      if (message.ready) ready();
    });
    const ended = await Promise.race([firstPass.then(() => false), closed.then(() => true)]);
    if (!ended) await sleep(IDLE_SECONDS * 1000);
    stop();
    process.off('exit', stop);
    const code = await closed;
    const counted = lines.find((message) => message.passes !== undefined)?.passes;
    if (code !== 0 || counted === undefined) throw new Error(`the process keeping the upstream busy exited ${code} without counting its passes`);
    passes.push(counted);
  };
}

/** The addresses in a temporary file, for a child process to read; removed when this process exits. */
async function addressesFile(addresses: readonly string[]): Promise<string> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'bench-addresses-'));
  process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
  const file = path.join(directory, 'addresses.json');
  await writeFile(file, JSON.stringify(addresses));
  return file;
}

/**
 * First runs in processes started for them (support/restarted-process-run.ts), with the options this process
 * runs with (the sync's as deployed, its V8 flags and tsx; --expose-gc, which they do not use): the sync's first run, or the
 * first pass of the fetching and hashing loop over `addresses` (a file of them).
 */
function restartedRunner(databaseUrl: string, upstreamUrl: string, upstreamCpuSeconds: () => Promise<number>, first: Step, addresses: string) {
  const run = async (extraEnv: Record<string, string>): Promise<RestartedRun & { result: unknown; profile?: ProfileSummary }> => {
    const upstreamBefore = await upstreamCpuSeconds();
    const child = spawn(process.execPath, [...process.execArgv, path.join(repoRoot, 'bench/support/restarted-process-run.ts')], {
      cwd: repoRoot,
      env: { ...process.env, RESTART_DATABASE_URL: databaseUrl, RESTART_UPSTREAM_URL: upstreamUrl, RESTART_TIME_ZONE: SYNC_TIME_ZONE, ...extraEnv },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    // The child's start-up does not ask the upstream, so what the upstream spent meanwhile served its run.
    const upstreamCpu = (await upstreamCpuSeconds()) - upstreamBefore;
    if (code !== 0) throw new Error(`the restarted process exited ${code}:\n${output}`);
    const { seconds, cpuSeconds, mainThreadCpuSeconds, result, profile } = JSON.parse(output.trim().split('\n').at(-1)!) as {
      seconds: number;
      cpuSeconds: number;
      mainThreadCpuSeconds: number;
      result: unknown;
      profile?: ProfileSummary;
    };
    const shares = { shareOfFirst: seconds / first.seconds, cpuShareOfFirst: cpuSeconds / first.cpuSeconds };
    return { seconds, cpuSeconds, mainThreadCpuSeconds, upstreamCpuSeconds: upstreamCpu, ...shares, result, ...(profile ? { profile } : {}) };
  };
  return {
    sync: async (): Promise<RestartedSyncRun> => {
      const { result, ...timed } = await run({});
      const { status, feedsParsed, feedsUnchanged, upstreamUnchanged } = result as SyncRunResult;
      return { ...timed, status, feedsParsed, feedsUnchanged, upstreamUnchanged };
    },
    loop: async (): Promise<RestartedRun> => {
      const { result: _bytes, ...timed } = await run({ RESTART_ADDRESSES: addresses });
      return timed;
    },
    /** A first run under the CPU profiler (slowed by it, so no figure): where its time goes. */
    profiledSync: async (file: string): Promise<ProfileSummary> => (await run({ RESTART_PROFILE: file })).profile!,
    profiledLoop: async (file: string): Promise<ProfileSummary> => (await run({ RESTART_ADDRESSES: addresses, RESTART_PROFILE: file })).profile!,
  };
}

/** Runs one scale in a child process and returns its report. */
async function benchInChild(scale: number): Promise<ScaleReport> {
  const child = spawn(process.execPath, [...SYNC_PROCESS_OPTIONS, import.meta.filename], {
    cwd: repoRoot,
    env: { ...process.env, BENCH_ONE_SCALE: String(scale) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const line = output.split('\n').find((candidate) => candidate.startsWith(RESULT_PREFIX));
  if (code !== 0 || !line) throw new Error(`scale ${scale} failed (exit ${code}):\n${output}`);
  return JSON.parse(line.slice(RESULT_PREFIX.length)) as ScaleReport;
}

function replayPhases(counts: NonNullable<ScaleReport['replayCounts']>): string {
  const phase = ({ replayed, forwarded }: ReplayCounts) => `${replayed}/${forwarded}`;
  return `first sync ${phase(counts.first)}, unchanged re-syncs and bare fetches ${phase(counts.unchanged)}, churn re-sync ${phase(counts.churn)}`;
}

function share(step: Shares): string {
  return `    = ${(step.shareOfFirst * 100).toFixed(1)} % of the first (CPU ${(step.cpuShareOfFirst * 100).toFixed(1)} %)`;
}

type Timed = Pick<Step, 'seconds' | 'cpuSeconds'>;

function against(resync: Timed, baseline: Timed, which = 'the warm unchanged re-sync', its = 'its'): string {
  return `    ${which} took ${(resync.seconds / baseline.seconds).toFixed(2)} times ${its} time and ${(resync.cpuSeconds / baseline.cpuSeconds).toFixed(2)} times ${its} CPU`;
}

function total(steps: readonly Timed[]): Timed {
  return { seconds: steps.reduce((sum, step) => sum + step.seconds, 0), cpuSeconds: steps.reduce((sum, step) => sum + step.cpuSeconds, 0) };
}

function restartedLine(run: RestartedRun | RestartedSyncRun): string {
  const cpu = `CPU ${run.cpuSeconds.toFixed(2)} s, the main thread's ${run.mainThreadCpuSeconds.toFixed(2)} s`;
  const timed = `${run.seconds.toFixed(2)} s (${cpu}; the upstream's ${run.upstreamCpuSeconds.toFixed(2)} s)`;
  if (!('status' in run)) return `  the first pass of the fetching and hashing loop in a process started afresh: ${timed}`;
  return (
    `  the first run of a sync process started afresh (as after a restart): ${timed}, ` +
    `feeds parsed ${run.feedsParsed}, unchanged ${run.feedsUnchanged}, ${run.status}` +
    (run.upstreamUnchanged ? ', upstream unchanged' : '')
  );
}

/** The medians of a list of steps, each with its shares of the first sync. */
type SharedStep = Timed & Shares & { upstreamCpuSeconds: number };

function medians(steps: readonly SharedStep[]): SharedStep {
  const of = (pick: (step: SharedStep) => number) => median(steps.map(pick));
  return {
    seconds: of((step) => step.seconds),
    cpuSeconds: of((step) => step.cpuSeconds),
    upstreamCpuSeconds: of((step) => step.upstreamCpuSeconds),
    shareOfFirst: of((step) => step.shareOfFirst),
    cpuShareOfFirst: of((step) => step.cpuShareOfFirst),
  };
}

/** Steps taken in rounds of A, B, B, A: the medians of each, and how they compare. */
function roundLines(title: string, names: [string, string], runs: [readonly SharedStep[], readonly SharedStep[]], compare: (a: SharedStep, b: SharedStep) => string): string[] {
  const line = (name: string, steps: readonly SharedStep[]) => {
    const middle = medians(steps);
    const range = (values: number[]) => `${(Math.min(...values) * 100).toFixed(1)} to ${(Math.max(...values) * 100).toFixed(1)} %`;
    return (
      `  ${name}, median of ${steps.length}: ${middle.seconds.toFixed(2)} s (CPU ${middle.cpuSeconds.toFixed(2)} s; the upstream's ` +
      `${middle.upstreamCpuSeconds.toFixed(2)} s) = ${(middle.shareOfFirst * 100).toFixed(1)} % of the first (${range(steps.map((step) => step.shareOfFirst))})`
    );
  };
  return [title, line(names[0], runs[0]), line(names[1], runs[1]), compare(medians(runs[0]), medians(runs[1]))];
}

function warmRoundLines(rounds: ScaleReport['warmRounds']): string[] {
  return roundLines(
    `  warm, in ${rounds.resyncs.length / 2} rounds of re-sync, loop, loop, re-sync:`,
    ['unchanged re-sync', 'fetching and hashing'],
    [rounds.resyncs, rounds.loops],
    (resync, loop) => against(resync, loop, 'the median re-sync', 'the median loop\'s'),
  );
}

/** One round is told run by run; several by their medians. */
function restartedLines(resyncs: readonly RestartedSyncRun[], loops: readonly RestartedRun[]): string[] {
  if (resyncs.length > 2) {
    return roundLines(
      `  in processes started afresh, in ${resyncs.length / 2} rounds of sync, loop, loop, sync:`,
      ['the first run of a sync process started afresh', 'the first pass of the fetching and hashing loop in a process started afresh'],
      [resyncs, loops],
      (resync, loop) => against(resync, loop, 'the median restarted sync run', 'the median restarted loop\'s'),
    ).concat(mainThreadLine(resyncs, loops));
  }
  return [
    `  in processes started afresh, in the order sync, loop, loop, sync:`,
    ...[resyncs[0]!, ...loops, resyncs[1]!].flatMap((run) => [restartedLine(run), share(run)]),
    against(total(resyncs), total(loops), 'the two restarted sync runs', 'the two restarted loops\''),
  ];
}

/** How much of the restarted runs' CPU their main threads spent, and so how much V8's helper threads did. */
function mainThreadLine(resyncs: readonly RestartedRun[], loops: readonly RestartedRun[]): string {
  const of = (runs: readonly RestartedRun[]) =>
    `${median(runs.map((run) => run.mainThreadCpuSeconds)).toFixed(2)} of ${median(runs.map((run) => run.cpuSeconds)).toFixed(2)} s`;
  return `    their main threads' CPU, medians: the sync's ${of(resyncs)}, the loop's ${of(loops)}; the rest on V8's helper threads`;
}

function describe(report: ScaleReport): string {
  const run = (name: string, step: RunStep) =>
    `  ${name}: ${step.seconds.toFixed(2)} s (CPU ${step.cpuSeconds.toFixed(2)} s; the upstream's ${step.upstreamCpuSeconds.toFixed(2)} s), ` +
    `RSS ${step.startRssMb} MB at start, peak ${step.peakRssMb} MB, ` +
    `${step.created}/${step.updated}/${step.deleted} created/updated/deleted, feeds parsed ${step.feedsParsed}, unchanged ${step.feedsUnchanged}, ${step.status}` +
    (step.upstreamUnchanged ? ', upstream unchanged' : '');
  const bare = (name: string, step: Step) =>
    `  ${name}: ${step.seconds.toFixed(2)} s (CPU ${step.cpuSeconds.toFixed(2)} s; the upstream's ${step.upstreamCpuSeconds.toFixed(2)} s)`;
  const [resync1, resync2] = report.unchangedResyncsAfterIdle;
  const [loop1, loop2] = report.bareFetchAndHashAfterIdle;
  const afterIdle: [string, { resync: RunStep & Shares } | { loop: Step & Shares }][] = [
    ['unchanged re-sync after idling', { resync: resync1! }],
    ['fetching and hashing after idling', { loop: loop1! }],
    ['fetching and hashing after idling', { loop: loop2! }],
    ['unchanged re-sync after idling', { resync: resync2! }],
  ];
  return [
    `scale ${report.scale}: ${report.entities} entities, ${report.events} events`,
    ...(report.upstreamWarmUp
      ? [
          `  upstream warmed on planning unit ${report.upstreamWarmUp.planningUnit} (${report.upstreamWarmUp.feeds} feeds), its CPU a pass: ` +
            report.upstreamWarmUp.cpuSecondsPerPass.map((seconds) => `${seconds.toFixed(2)} s`).join(', '),
        ]
      : []),
    run('first sync', report.firstSync),
    `  publishing the outbox: ${report.publishOutbox.seconds.toFixed(1)} s, peak RSS ${report.publishOutbox.peakRssMb} MB`,
    ...(report.loopRightAfterFirstSync
      ? [bare('fetching and hashing right after the first sync (the re-syncs below follow it)', report.loopRightAfterFirstSync), share(report.loopRightAfterFirstSync)]
      : []),
    `${run('unchanged re-sync', report.unchangedResync)}`,
    share(report.unchangedResync),
    `${run('unchanged re-sync again (warm)', report.unchangedResyncWarm)}`,
    share(report.unchangedResyncWarm),
    `  bare fetch of the same ${report.bareFetch.requests} addresses (${report.bareFetch.megabytes.toFixed(1)} MB), ${UPSTREAM_CONCURRENCY} at a time: ` +
      `${report.bareFetch.seconds.toFixed(2)} s (CPU ${report.bareFetch.cpuSeconds.toFixed(2)} s; the upstream's ${report.bareFetch.upstreamCpuSeconds.toFixed(2)} s)`,
    against(report.unchangedResyncWarm, report.bareFetch),
    bare('the same, each answer hashed as the sync does', report.bareFetchAndHash),
    share(report.bareFetchAndHash),
    against(report.unchangedResyncWarm, report.bareFetchAndHash),
    `  after idling ${report.idleSeconds} s before each, in the order re-sync, loop, loop, re-sync:`,
    ...afterIdle.flatMap(([name, step]) => ['resync' in step ? run(name, step.resync) : bare(name, step.loop), share('resync' in step ? step.resync : step.loop)]),
    against(total(report.unchangedResyncsAfterIdle), total(report.bareFetchAndHashAfterIdle), 'the two re-syncs after idling', 'the two loops\''),
    ...warmRoundLines(report.warmRounds),
    ...restartedLines(report.restartedProcessResyncs, report.restartedProcessLoops),
    `  churn: ${report.churn.operations} simulator changes, ${report.churn.eventsChanged} event changes (${(report.churn.shareOfEvents * 100).toFixed(1)} % of the events)`,
    `${run('churn re-sync', report.churnResync)}`,
    `    = ${(report.churnResync.shareOfFirst * 100).toFixed(1)} % of the first`,
    ...(report.replayCounts ? [`  the replaying upstream's GETs, replayed/forwarded: ${replayPhases(report.replayCounts)}`] : []),
  ].join('\n');
}

const one = process.env.BENCH_ONE_SCALE;
if (one !== undefined) {
  await benchOneScale(Number(one));
} else {
  const scales = (process.env.BENCH_SCALES ?? process.env.BENCH_SCALE ?? '10,100').split(',').map((scale) => Number(scale.trim()));
  const measuredCode = codeVersion();
  process.stdout.write(`sync process options as deployed (SYNC_NODE_OPTIONS): ${SYNC_NODE_OPTIONS.join(' ') || 'none'}\n`);
  process.stdout.write(
    UPSTREAM_VALIDATORS
      ? 'upstream: group feeds with ETags, 304 when unchanged (BENCH_UPSTREAM_VALIDATORS=1; StarPlan sends none)\n'
      : 'upstream: as StarPlan, no validators (BENCH_UPSTREAM_VALIDATORS=1 for an upstream that sends them)\n',
  );
  process.stdout.write(
    UPSTREAM_WARM_UP_PASSES > 0
      ? `upstream: warmed before the first sync by ${UPSTREAM_WARM_UP_PASSES} passes over another term's group feeds (BENCH_UPSTREAM_WARM_UP_PASSES=0 for none)\n`
      : 'upstream: not warmed before the first sync (BENCH_UPSTREAM_WARM_UP_PASSES=0): the simulator compiles its code while it serves the sync\n',
  );
  process.stdout.write(`upstream's V8 flags: ${UPSTREAM_V8_FLAGS.join(' ') || 'none (V8\'s defaults)'} (BENCH_UPSTREAM_V8_FLAGS to change them)\n`);
  if (LOOP_RIGHT_AFTER) {
    process.stdout.write('a pass of the fetching and hashing loop right after the first sync (BENCH_LOOP_RIGHT_AFTER=1): the first re-sync follows it\n');
  }
  if (BUSY_UPSTREAM) {
    process.stdout.write('upstream: kept busy by a process of its own during every pause (BENCH_BUSY_UPSTREAM=1): only the sync process idles\n');
  }
  if (UPSTREAM_REPLAY) {
    process.stdout.write(
      'upstream: the simulator behind a replaying proxy (BENCH_UPSTREAM_REPLAY=1): the first sync and the churn re-sync read the simulator ' +
        'through it, the unchanged re-syncs and the bare fetches its recorded answers from memory\n',
    );
  }
  if (scales.some((scale) => !(scale > 0))) throw new Error(`BENCH_SCALES must list positive numbers, got ${process.env.BENCH_SCALES}`);
  const reports: ScaleReport[] = [];
  for (const scale of scales) {
    const report = await benchInChild(scale);
    reports.push(report);
    process.stdout.write(`${describe(report)}\n`);
    if (report.profiles) {
      const { resync, loop, resyncAfterIdle, loopAfterIdle, restartedSync, restartedLoop } = report.profiles;
      process.stdout.write(`${formatProfile(`the sync process in an unchanged re-sync at scale ${scale}, warm`, resync)}\n`);
      process.stdout.write(`${formatProfile(`the same process fetching and hashing the same answers, warm`, loop)}\n`);
      process.stdout.write(`${formatProfile(`the sync process in an unchanged re-sync at scale ${scale}, after idling`, resyncAfterIdle)}\n`);
      process.stdout.write(`${formatProfile(`the same process fetching and hashing the same answers, after idling`, loopAfterIdle)}\n`);
      process.stdout.write(`${formatProfile(`the first run of a sync process started afresh at scale ${scale}`, restartedSync)}\n`);
      process.stdout.write(`${formatProfile(`the first pass of the fetching and hashing loop in a process started afresh`, restartedLoop)}\n`);
    }
  }
  process.stdout.write(
    'targets (bench/README.md): scale 10 first sync <= 10 s and <= 400 MB RSS; scale 100 first sync <= 120 s and <= 512 MB RSS; ' +
      'unchanged re-sync <= 10 % of the first\n',
  );
  await mkdir(resultsDir, { recursive: true });
  const result = {
    measuredAt: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    upstreamValidators: UPSTREAM_VALIDATORS,
    upstreamReplay: UPSTREAM_REPLAY,
    busyUpstream: BUSY_UPSTREAM,
    loopRightAfter: LOOP_RIGHT_AFTER,
    upstreamWarmUpPasses: UPSTREAM_WARM_UP_PASSES,
    upstreamV8Flags: UPSTREAM_V8_FLAGS,
    restartRounds: RESTART_ROUNDS,
    // The code measured: HEAD, and whether the working tree differed from it, when the run started.
    ...measuredCode,
    // What the sync process ran with, so a run with options of its own is told from one as deployed.
    syncProcessOptions: SYNC_PROCESS_OPTIONS,
    scales: reports,
  };
  await writeFile(path.join(resultsDir, 'sync-scale.json'), `${JSON.stringify(result, null, 2)}\n`);
}

function codeVersion(): { commit: string | null; uncommittedChanges: boolean | null } {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();
    return { commit: git('rev-parse', 'HEAD'), uncommittedChanges: git('status', '--porcelain').length > 0 };
  } catch {
    return { commit: null, uncommittedChanges: null };
  }
}
