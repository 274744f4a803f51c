/**
 * The bench's upstream beside a bare server (bench/README.md, "Sync at scale"): the StarPlan
 * simulator at BENCH_SCALE (default 10) and a bare `node:http` server sending the very bytes the simulator
 * answered, each in a process of its own, read in turn by one client (six at a time, as the sync reads) for
 * BENCH_PASSES passes each (default 20) over the group feeds of the current term. Reports the CPU time each
 * server spends on a pass, and how many times the bare server's the simulator's is. The simulator shares the
 * machine's cores with the sync in `npm run bench:sync`, so what it spends beyond a plain server is time a
 * re-sync waits for that it would not wait for in production, where StarPlan runs elsewhere.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { UPSTREAM_CONCURRENCY } from '@timetable/sync/testing';
import { bareFetch } from './support/bare-fetch.js';
import { median } from './support/median.js';
import { resultsDir } from './support/results-dir.js';
import { simulatorGroupIds, simulatorPlanningUnits } from './support/simulator-listing.js';
import { freePort, startSimulatorProcess, startUpstreamProcess, type UpstreamProcess } from './support/upstream-process.js';

const SCALE = Number(process.env.BENCH_SCALE ?? 10);
if (!(SCALE > 0)) throw new Error(`BENCH_SCALE must be a positive number, got ${process.env.BENCH_SCALE}`);
const PASSES = Number(process.env.BENCH_PASSES ?? 20);
if (!(Number.isInteger(PASSES) && PASSES >= 2)) throw new Error(`BENCH_PASSES must be an integer of at least 2, got ${process.env.BENCH_PASSES}`);

interface Pass {
  seconds: number;
  serverCpuSeconds: number;
}

const simulatorPort = await freePort();
const simulatorBase = `http://127.0.0.1:${simulatorPort}/splan`;
const simulator = await startSimulatorProcess(simulatorPort, SCALE);
const directory = await mkdtemp(path.join(os.tmpdir(), 'bench-upstream-'));
let bare: UpstreamProcess | undefined;
try {
  const targets = await currentFeedTargets(simulatorBase);
  // One pass keeps every answer's bytes: the bare server sends them, and the simulator has built the feeds it keeps.
  const answersFile = path.join(directory, 'answers.json');
  await writeFile(answersFile, JSON.stringify(await keepAnswers(simulatorBase, targets, directory)));
  const barePort = await freePort();
  bare = await startUpstreamProcess('bare server', 'bench/support/bare-upstream.ts', { BARE_PORT: String(barePort), BARE_ANSWERS: answersFile }, `http://127.0.0.1:${barePort}${targets[0]}`);
  const servers = [
    { name: 'simulator', process: simulator, addresses: targets.map((target) => `http://127.0.0.1:${simulatorPort}${target}`), passes: [] as Pass[] },
    { name: 'bare server', process: bare, addresses: targets.map((target) => `http://127.0.0.1:${barePort}${target}`), passes: [] as Pass[] },
  ];
  for (const server of servers) for (let warmUp = 0; warmUp < 2; warmUp += 1) await bareFetch(server.addresses, UPSTREAM_CONCURRENCY);
  // In turn, A B then B A, so that a drift of the machine's speed weighs on both alike.
  for (let pass = 0; pass < PASSES; pass += 1) {
    for (const server of pass % 2 === 0 ? servers : [...servers].reverse()) server.passes.push(await timedPass(server.process, server.addresses));
  }
  const summary = servers.map(({ name, passes }) => ({
    name,
    serverCpuSeconds: median(passes.map((pass) => pass.serverCpuSeconds)),
    seconds: median(passes.map((pass) => pass.seconds)),
    passes,
  }));
  const [simulated, plain] = summary as [(typeof summary)[number], (typeof summary)[number]];
  process.stdout.write(`scale ${SCALE}: ${targets.length} group feeds, ${UPSTREAM_CONCURRENCY} at a time, ${PASSES} passes of each server in turn (medians)\n`);
  for (const { name, serverCpuSeconds, seconds } of summary) {
    process.stdout.write(
      `  ${name}: CPU ${(serverCpuSeconds * 1000).toFixed(0)} ms a pass (${((serverCpuSeconds / targets.length) * 1e6).toFixed(0)} µs an answer), ` +
        `the pass ${(seconds * 1000).toFixed(0)} ms\n`,
    );
  }
  const ratio = simulated.serverCpuSeconds / plain.serverCpuSeconds;
  process.stdout.write(`  the simulator spent ${ratio.toFixed(2)} times the bare server's CPU\n`);
  await mkdir(resultsDir, { recursive: true });
  await writeFile(
    path.join(resultsDir, 'upstream-serving.json'),
    `${JSON.stringify({ measuredAt: new Date().toISOString(), node: process.version, scale: SCALE, feeds: targets.length, ratio, servers: summary }, null, 2)}\n`,
  );
} finally {
  bare?.stop();
  simulator.stop();
  await rm(directory, { recursive: true, force: true });
}

/** One pass over `addresses`, and the CPU the server spent on it (read from /proc; 10 ms ticks). */
async function timedPass(server: UpstreamProcess, addresses: readonly string[]): Promise<Pass> {
  const cpuBefore = await server.cpuSeconds();
  const started = performance.now();
  await bareFetch(addresses, UPSTREAM_CONCURRENCY);
  const seconds = (performance.now() - started) / 1000;
  return { seconds, serverCpuSeconds: (await server.cpuSeconds()) - cpuBefore };
}

/** The request targets of every group's feed in the term the simulator places today in. */
async function currentFeedTargets(base: string): Promise<string[]> {
  const units = await simulatorPlanningUnits(base);
  const today = new Date().toISOString().slice(0, 10);
  const current = units.find((unit) => unit.startdate <= today && today <= unit.enddate) ?? units.toSorted((a, b) => a.startdate.localeCompare(b.startdate)).at(-1);
  if (current === undefined) throw new Error('the simulator lists no planning unit');
  const basePath = new URL(base).pathname;
  return (await simulatorGroupIds(base)).map((pgid) => `${basePath}/ical?lan=de&puid=${current.id}&type=pg&pgid=${pgid}`);
}

/** Reads each target once, six at a time, and writes its bytes to a file of `directory`: `[target, contentType, file]`. */
async function keepAnswers(base: string, targets: readonly string[], directory: string): Promise<[string, string, string][]> {
  const origin = new URL(base).origin;
  const kept: [string, string, string][] = [];
  let next = 0;
  const reader = async () => {
    while (next < targets.length) {
      const index = next++;
      const target = targets[index]!;
      const response = await fetch(`${origin}${target}`);
      if (!response.ok) throw new Error(`${target} answered ${response.status}`);
      const file = path.join(directory, String(index));
      await writeFile(file, Buffer.from(await response.arrayBuffer()));
      kept[index] = [target, response.headers.get('content-type') ?? 'application/octet-stream', file];
    }
  };
  await Promise.all(Array.from({ length: UPSTREAM_CONCURRENCY }, reader));
  return kept;
}
