/**
 * `npm run bench:e2e` runs from a fresh clone against the distributed stack and reports the latency from an
 * upstream change to the subscriber's receipt, with the intervals it ran with. A smoke run of three changes:
 * the figures are for bench/README.md, never asserted here. In the distributed project, as it starts a stack.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { runBench, type BenchRun } from './run-bench.js';

interface E2eReport {
  settings: { changes: number; syncIntervalSeconds: number; deliveryIntervalSeconds: number };
  latencyMs: { n: number; p50: number; p99: number };
  lost: number;
  badSignatures: number;
  changes: unknown[];
}

let run: BenchRun | undefined;
afterAll(() => run?.cleanup());

describe('npm run bench:e2e (smoke run)', () => {
  it('reports p50 and p99 from an upstream change to the signed delivery, with the sync and delivery intervals', async () => {
    // The intervals named, so that a shell that sets them for the stack does not change what is checked.
    run = await runBench('bench:e2e', { BENCH_CHANGES: '3', SYNC_INTERVAL_SECONDS: '1', DELIVERY_INTERVAL_SECONDS: '1' });
    if (run.code !== 0) throw new Error(`npm run bench:e2e exited ${run.code}\n${run.stdout}\n${run.stderr}`);
    const report = await run.result<E2eReport>('e2e-latency.json');
    expect(report.settings).toMatchObject({ changes: 3, syncIntervalSeconds: 1, deliveryIntervalSeconds: 1 });
    expect(report.changes).toHaveLength(3);
    expect(report.latencyMs.n).toBe(3);
    expect(report.latencyMs.p50).toBeGreaterThan(0);
    expect(report.latencyMs.p99).toBeGreaterThanOrEqual(report.latencyMs.p50);
    expect(report).toMatchObject({ lost: 0, badSignatures: 0 });
    expect(run.stdout).toMatch(/p50 [\d.]+ s, p99 [\d.]+ s/);
    expect(run.stdout).toMatch(/SYNC_INTERVAL_SECONDS=1 .*DELIVERY_INTERVAL_SECONDS=1/);
  }, 600_000);
});
