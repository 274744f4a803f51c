/**
 * `npm run bench -- --distributed`: a student's views through the gateway of the distributed stack (as
 * `npm run stack` runs it: a process per service, Kafka, Redis for the response cache and the rate limits),
 * each against a bare node:http server sending the same bytes in the same run. Uses the shared infrastructure
 * named by DATABASE_URL, REDIS_URL, KAFKA_BROKERS and SCHEMA_REGISTRY_URL (the local defaults otherwise);
 * the stack's databases and topics are dropped afterwards. Only 127.0.0.1 is contacted.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startStack, type RunningStack } from '../scripts/stack/start-stack.js';
import { infrastructureFromEnv } from '../scripts/stack/stack-resources.js';
import type { RouteMeasurement } from './support/report.js';
import { resultsDir } from './support/results-dir.js';
import { measureSideBySide, type LoadSettings } from './support/side-by-side.js';
import { formatSideBySide, type SideBySideReport } from './support/side-by-side-report.js';
import { studentViews } from './support/student-views.js';

const env = process.env;
const SETTINGS: LoadSettings = {
  connections: Number(env.BENCH_CONNECTIONS ?? 64),
  durationSeconds: Number(env.BENCH_DURATION_SECONDS ?? 8),
  warmupSeconds: 1,
  rounds: Number(env.BENCH_ROUNDS ?? 3),
};
const TIME_ZONE = env.TIME_ZONE ?? 'Europe/Berlin';
const RESULT_FILE = path.join(resultsDir, 'distributed.json');
/** BENCH_ONLY=<text>: measure only the routes whose name contains it. */
const ONLY = env.BENCH_ONLY;

export interface DistributedReport extends SideBySideReport {
  startedAt: string;
}

const log = (line: string) => process.stdout.write(`${line}\n`);

async function startBenchStack(restarts: string[]): Promise<RunningStack> {
  return startStack({
    namespace: `bench_dist_${randomBytes(3).toString('hex')}`,
    ephemeral: true,
    readyTimeoutMs: 300_000,
    infrastructure: infrastructureFromEnv(env),
    env: {
      LOG_LEVEL: 'warn',
      TIME_ZONE,
      // The benchmark measures serving, not throttling: three tiers like the default's, each too large to refuse,
      // so the limiter counts every request in Redis against as many counters as it would by default.
      RATE_LIMITS: '1000000000/1s,1000000000/1m,1000000000/1h',
      // No second sync (and cache bump) in the middle of a measurement.
      SYNC_INTERVAL_SECONDS: '3600',
    },
    onRestart: (name, exitCode, signal) => {
      restarts.push(name);
      log(`WARNING: ${name} died (${signal ?? `exit ${exitCode}`}) and is being restarted; figures after this include that`);
    },
  });
}

export async function main(): Promise<void> {
  const startedAt = new Date().toISOString();
  const restarts: string[] = [];
  log('starting the distributed stack (gateway with Redis) and waiting for the first sync...');
  const started = performance.now();
  const stack = await startBenchStack(restarts);
  try {
    const stackReadyMs = performance.now() - started;
    const api = `${stack.gatewayUrl}/v1/timetable`;
    const gatewayPid = stack.process('gateway').pid;
    const routes: RouteMeasurement[] = [];
    for (const route of await studentViews(api, TIME_ZONE)) {
      if (ONLY && !route.name.includes(ONLY)) continue;
      log(`measuring ${route.name}...`);
      routes.push(await measureSideBySide(api, gatewayPid, route, SETTINGS));
    }
    const report: DistributedReport = { startedAt, node: process.versions.node, cpus: os.availableParallelism(), settings: SETTINGS, stackReadyMs, restarts, routes };
    log(`\n${formatSideBySide(report)}`);
    await mkdir(path.dirname(RESULT_FILE), { recursive: true });
    await writeFile(RESULT_FILE, `${JSON.stringify(report, null, 2)}\n`);
    log(`\nwritten to ${path.relative(process.cwd(), RESULT_FILE)}`);
  } finally {
    log('stopping the stack (its databases and topics are dropped)');
    await stack.stop();
  }
}
