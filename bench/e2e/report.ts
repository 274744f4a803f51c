/** bench:e2e's output: the per-change table and summary lines on stdout, and bench/results/e2e-latency.json. */
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '../../scripts/stack/stack-process.js';
import type { Restart } from './e2e-stack.js';
import type { Outcome } from './outcome.js';
import {
  CHANGE_TIMEOUT_MS,
  CHANGES,
  DELIVERY_INTERVAL_SECONDS,
  RELAY_IDLE_POLL_MS,
  RESULT_FILE,
  SYNC_INTERVAL_SECONDS,
  TARGET_SECONDS,
  log,
} from './settings.js';
import type { ChangeMeasurement } from './time-changes.js';

const ms = (value: number | null) => (value === null || Number.isNaN(value) ? '-' : String(Math.round(value)));
const seconds = (value: number) => (Number.isNaN(value) ? '-' : `${(value / 1000).toFixed(2)} s`);

function table(changes: ChangeMeasurement[]): string {
  const header = ['change', 'pause ms', 'latency ms', 'run start ms', 'to detected ms', 'detected->sent ms', 'sent->recv ms', 'signed'];
  const widths = header.map((cell) => cell.length);
  const rows = changes.map((change) => [
    `#${change.index}`,
    ms(change.pauseMs),
    change.latencyMs === null ? 'LOST' : ms(change.latencyMs),
    ms(change.runStartOffsetMs),
    ms(change.appliedToDetectedMs),
    ms(change.detectedToSentMs),
    ms(change.sentToReceivedMs),
    change.latencyMs === null ? '-' : change.signatureValid && change.standardSignatureValid ? 'ok' : 'BAD',
  ]);
  for (const row of rows) row.forEach((cell, index) => (widths[index] = Math.max(widths[index] ?? 0, cell.length)));
  const line = (cells: string[]) => cells.map((cell, index) => (index === 0 ? cell.padEnd(widths[index] ?? 0) : cell.padStart(widths[index] ?? 0))).join('  ');
  return [line(header), '-'.repeat(widths.reduce((sum, width) => sum + width + 2, -2)), ...rows.map(line)].join('\n');
}

export function printReport(measurements: ChangeMeasurement[], outcome: Outcome, restartsWhileMeasuring: number): void {
  const { latency, runDurations, runPeriods, lost, badSignatures, otherDeliveries, withinTarget, met } = outcome;
  process.stdout.write(`\n${table(measurements)}\n\n`);
  const lines = [
    `latency, upstream change applied -> signed delivery received, over ${latency.n} changes: p50 ${seconds(latency.p50)}, p99 ${seconds(latency.p99)}, max ${seconds(latency.max)} (min ${seconds(latency.min)}, mean ${seconds(latency.mean)}; nearest rank, so with fewer than 100 changes p99 is the max)`,
    `stack: SYNC_INTERVAL_SECONDS=${SYNC_INTERVAL_SECONDS} (pause after each run), DELIVERY_INTERVAL_SECONDS=${DELIVERY_INTERVAL_SECONDS}; outbox relay woken on commit (idle poll ${RELAY_IDLE_POLL_MS} ms); Kafka consumers long-poll`,
    `sync runs while measuring: ${runDurations.n}, duration p50 ${seconds(runDurations.p50)} max ${seconds(runDurations.max)}; start to start p50 ${seconds(runPeriods.p50)} max ${seconds(runPeriods.max)}`,
    `lost ${lost}, bad signatures ${badSignatures}, duplicate copies ${measurements.reduce((sum, m) => sum + m.copies, 0)}, other deliveries while measuring ${JSON.stringify(otherDeliveries)}, process restarts while measuring ${restartsWhileMeasuring}`,
    `target (bench/README.md): <= sync interval + delivery interval + 1 s = ${TARGET_SECONDS} s; ${withinTarget}/${latency.n} changes within it, max ${seconds(latency.max)}: ${met ? 'met' : 'NOT met'}`,
    `Node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg().map((value) => value.toFixed(2)).join(' ')}`,
  ];
  for (const line of lines) process.stdout.write(`${line}\n`);
}

export interface E2eResult {
  startedAt: Date;
  namespace: string;
  lecture: { id: number; name: string };
  outcome: Outcome;
  restarts: Restart[];
  measurements: ChangeMeasurement[];
}

export async function writeResult(result: E2eResult): Promise<void> {
  const { latency, withinTarget, met, runDurations, runPeriods, lost, badSignatures, otherDeliveries } = result.outcome;
  await mkdir(path.dirname(RESULT_FILE), { recursive: true });
  await writeFile(
    RESULT_FILE,
    `${JSON.stringify(
      {
        startedAt: result.startedAt.toISOString(),
        finishedAt: new Date().toISOString(),
        node: process.version,
        cpus: os.cpus().length,
        loadAverageAtEnd: os.loadavg(),
        namespace: result.namespace,
        settings: {
          changes: CHANGES,
          syncIntervalSeconds: SYNC_INTERVAL_SECONDS,
          deliveryIntervalSeconds: DELIVERY_INTERVAL_SECONDS,
          relayIdlePollMs: RELAY_IDLE_POLL_MS,
          changeTimeoutMs: CHANGE_TIMEOUT_MS,
          pauseBeforeEachChange: `uniform 0 to ${(SYNC_INTERVAL_SECONDS + 1) * 1000} ms`,
        },
        lecture: result.lecture,
        latencyMs: latency,
        target: { seconds: TARGET_SECONDS, withinTarget, met },
        syncRuns: { count: runDurations.n, durationMs: runDurations, startToStartMs: runPeriods },
        lost,
        badSignatures,
        otherDeliveries,
        restarts: result.restarts,
        changes: result.measurements,
      },
      null,
      2,
    )}\n`,
  );
  log(`written ${path.relative(repoRoot, RESULT_FILE)}`);
}
