/**
 * `npm run bench:chaos`: everything at once, for half an hour by default (CHAOS_MINUTES or `--minutes N`).
 * The distributed stack (one process per service, supervised as a platform would) runs on private PostgreSQL,
 * Redis, Kafka and registry, as the fault matrix's does, with the StarPlan simulator as the upstream and a
 * global webhook to a receiver on 127.0.0.1. While the upstream is churned every 2.5 s, a random service is
 * SIGKILLed every 2 minutes, Kafka and the registry are killed and restarted and Redis stopped, in turn, and
 * the upstream answers garbage and records the mirror cannot interpret throughout. Then every fault is healed
 * and the accounts are kept: lost and duplicated change records against what sync published run by run,
 * deliveries expected and received, the catalog against the upstream. Exits 1 unless all of them are clean.
 */
import os from 'node:os';
import path from 'node:path';
import { ChangeStream } from '../services/standalone/test/faults/support/change-stream.js';
import { sleep } from '../services/standalone/test/faults/support/eventually.js';
import { startFaultSystem, type FaultSystem } from '../services/standalone/test/faults/support/fault-system.js';
import { breakInfrastructure, garbleUpstream, healEverything, killServices, type FaultLoop, type FaultTally } from './support/chaos-faults.js';
import { clean, keepLedger, settle } from './support/chaos-ledger.js';
import { chaosSettings, seededRandom, SERVICES } from './support/chaos-plan.js';
import { counterByLabels, formatChaosReport, writeChaosReport, type ChaosReport } from './support/chaos-report.js';
import { resultsDir } from './support/results-dir.js';

const RESULT_FILE = path.join(resultsDir, 'chaos-soak.json');
const CHURN_EVERY_MS = 2_500;
const log = (line: string) => process.stdout.write(`[bench:chaos] ${line}\n`);

const settings = chaosSettings(process.argv.slice(2), process.env);
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    log(`${signal}: ending the faults early, healing and stopping every process this bench started`);
    interrupted = true;
  });
}

/** Churns the upstream until the soak ends; returns the stream the accounts are kept of. */
async function churnUntil(stream: ChangeStream, endsAt: number): Promise<void> {
  while (Date.now() < endsAt && !interrupted) {
    await stream.churn(1);
    await sleep(CHURN_EVERY_MS);
  }
}

async function soak(system: FaultSystem): Promise<ChaosReport> {
  const startedAtIso = new Date().toISOString();
  const stream = await ChangeStream.begin(system);
  const tally: FaultTally = { byKind: {}, killed: {} };
  const startedAt = Date.now();
  const loop: FaultLoop = { system, random: seededRandom(settings.seed), tally, startedAt, endsAt: startedAt + settings.minutes * 60_000 };
  log(`soaking for ${settings.minutes} min (seed ${settings.seed})`);
  const endEarly = setInterval(() => {
    if (interrupted) loop.endsAt = Math.min(loop.endsAt, Date.now());
  }, 500);
  try {
    await Promise.all([
      churnUntil(stream, loop.endsAt),
      killServices(loop, settings.minutes),
      breakInfrastructure(loop, settings.minutes),
      garbleUpstream(loop, settings.minutes),
    ]);
  } finally {
    clearInterval(endEarly);
  }
  const soakSeconds = Math.round((Date.now() - startedAt) / 1000);
  log('healing: the upstream behaves, every service is waited for');
  await healEverything(system);
  const healedAt = new Date();
  await settle(system, healedAt);
  log('settled: keeping the accounts');
  const ledger = await keepLedger(system, stream);
  return {
    startedAt: startedAtIso,
    node: process.version,
    cpus: os.cpus().length,
    settings,
    soakSeconds,
    settleSeconds: Math.round((Date.now() - healedAt.getTime()) / 1000),
    faults: tally,
    changesMadeUpstream: stream.changesMade,
    churns: stream.churnCount,
    recordsRejected: await counterByLabels(system.stack.process('sync').url, 'sync_upstream_records_rejected_total').catch(() => ({})),
    restarts: Object.fromEntries(SERVICES.map((service) => [service, system.stack.process(service).restarts])),
    ledger,
    passed: clean(ledger),
  };
}

async function main(): Promise<number> {
  log('starting private PostgreSQL, Redis, Kafka and registry, and the distributed stack on them');
  const system = await startFaultSystem();
  try {
    const report = await soak(system);
    await writeChaosReport(RESULT_FILE, report);
    process.stdout.write(`\n${formatChaosReport(report)}\n\nwritten to ${RESULT_FILE}\n`);
    return report.passed ? 0 : 1;
  } finally {
    log('stopping the stack and the private infrastructure');
    await system.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`[bench:chaos] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
