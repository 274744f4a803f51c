/**
 * `npm run bench:chaos`, the fault matrix's last row (everything at once), as a smoke run of one minute: it
 * starts its own private infrastructure and stack, injects every fault kind at least once while the upstream
 * churns, and keeps the accounts. How long it took is for the bench's report, never asserted here.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { runBench, type BenchRun } from '../../../../bench/test/run-bench.js';
import { FAULT_KINDS } from '../../../../bench/support/chaos-plan.js';
import type { ChaosReport } from '../../../../bench/support/chaos-report.js';

let run: BenchRun | undefined;
afterAll(() => run?.cleanup());

describe('npm run bench:chaos (a one-minute smoke run)', () => {
  it('injects every fault kind, loses and duplicates no change record, delivers every change and ends with the upstream\'s catalog', async () => {
    run = await runBench('bench:chaos', { CHAOS_MINUTES: '1' });
    if (run.code !== 0) throw new Error(`npm run bench:chaos exited ${run.code}\n${run.stdout}\n${run.stderr}`);
    const report = await run.result<ChaosReport>('chaos-soak.json');
    expect(report.settings.minutes).toBe(1);
    const missing = FAULT_KINDS.filter((kind) => !(report.faults.byKind[kind]! >= 1));
    expect(missing, 'fault kinds never injected').toEqual([]);
    expect(report.changesMadeUpstream).toBeGreaterThan(0);
    const { ledger } = report;
    expect(ledger.changesPublished).toBeGreaterThan(0);
    expect(ledger).toMatchObject({ lost: 0, duplicated: 0, changeRecords: ledger.changesPublished, changesUnderTwoWebhookIds: 0, deadLetters: 0, catalogEqualsUpstream: true });
    expect(ledger.deliveriesExpected).toBe(ledger.changeRecords);
    expect(ledger.deliveriesReceived).toBe(ledger.deliveriesExpected);
    expect(report.passed).toBe(true);
    expect(run.stdout).toMatch(/lost\s+0\n/);
    expect(run.stdout).toMatch(/duplicated\s+0\n/);
  }, 900_000);
});
