/** The figures of one `npm run bench:chaos` run: a table on stdout and `chaos-soak.json`. */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FaultTally } from './chaos-faults.js';
import type { Ledger } from './chaos-ledger.js';

export interface ChaosReport {
  startedAt: string;
  node: string;
  cpus: number;
  settings: { minutes: number; seed: number };
  soakSeconds: number;
  /** From the end of the faults to the accounts being settled. */
  settleSeconds: number;
  faults: FaultTally;
  changesMadeUpstream: number;
  churns: number;
  /** Upstream records the sync refused at its boundary (sync_upstream_records_rejected_total), by `kind/reason`. */
  recordsRejected: Record<string, number>;
  /** Restarts of each service by the stack's supervisor. */
  restarts: Record<string, number>;
  ledger: Ledger;
  passed: boolean;
}

const row = (name: string, value: string | number) => `${name.padEnd(44)} ${String(value)}`;

export function formatChaosReport(report: ChaosReport): string {
  const { ledger } = report;
  const faults = Object.entries(report.faults.byKind).sort(([a], [b]) => a.localeCompare(b));
  const rejected = Object.entries(report.recordsRejected).sort(([a], [b]) => a.localeCompare(b));
  return [
    row('figure', 'value'),
    '-'.repeat(60),
    row('soak', `${report.settings.minutes} min planned, ${report.soakSeconds} s of faults, ${report.settleSeconds} s to settle (seed ${report.settings.seed})`),
    row('faults injected', faults.reduce((sum, [, times]) => sum + times, 0)),
    ...faults.map(([kind, times]) => row(`  ${kind}`, times)),
    row('  services SIGKILLed', Object.entries(report.faults.killed).map(([name, times]) => `${name} ${times}`).join(', ') || 'none'),
    row('changes made upstream', `${report.changesMadeUpstream} (${report.churns} churns)`),
    row('records refused by sync (since its last start)', rejected.reduce((sum, [, times]) => sum + times, 0)),
    ...rejected.map(([kind, times]) => row(`  ${kind}`, times)),
    row('sync runs', Object.entries(ledger.syncRuns).map(([status, runs]) => `${status} ${runs}`).join(', ')),
    row('changes published by sync', ledger.changesPublished),
    row('change records', ledger.changeRecords),
    row('lost', ledger.lost),
    row('duplicated', ledger.duplicated),
    row('deliveries expected', ledger.deliveriesExpected),
    row('deliveries received', `${ledger.deliveriesReceived} (${ledger.deliveryAttempts} attempts answered)`),
    row('changes under two webhook-ids', ledger.changesUnderTwoWebhookIds),
    row('dead letters', ledger.deadLetters),
    row('catalog equals the upstream', ledger.catalogEqualsUpstream ? 'yes' : 'NO'),
    row('service restarts by the stack', Object.entries(report.restarts).map(([name, times]) => `${name} ${times}`).join(', ')),
    '',
    `${report.cpus} CPUs, Node ${report.node}; ${report.passed ? 'PASSED' : 'FAILED'}: lost and duplicated must be 0, every change delivered, the catalog the upstream's`,
  ].join('\n');
}

export async function writeChaosReport(file: string, report: ChaosReport): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
}

/** A Prometheus counter's samples by their labels, e.g. `{kind="event",reason="impossible_date"}` as `event/impossible_date`. */
export async function counterByLabels(url: string, name: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
  const samples: Record<string, number> = {};
  for (const line of text.split('\n').filter((candidate) => candidate.startsWith(`${name}{`))) {
    const labels = [...line.matchAll(/="([^"]*)"/g)].map((match) => match[1]).join('/');
    samples[labels] = (samples[labels] ?? 0) + Number(line.split(' ').at(-1));
  }
  return samples;
}
