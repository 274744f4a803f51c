/**
 * `npm run bench -- --distributed` runs from a fresh clone against the distributed stack and reports each of a
 * student's views through its gateway beside a bare server sending the same bytes in the same run. A smoke run
 * (short runs, few connections): the figures are for bench/README.md, never asserted here. In the distributed
 * project, as it starts a stack.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { runBench, type BenchRun } from './run-bench.js';

interface LoadFigures {
  requestsPerSecond: number;
  latencyP99Ms: number;
  non2xx: number;
}

interface DistributedReport {
  settings: { connections: number; durationSeconds: number; rounds: number };
  routes: { name: string; bodyBytes: number; gateway: LoadFigures; bare: LoadFigures; ratio: number; pairRatios: number[] }[];
}

let run: BenchRun | undefined;
afterAll(() => run?.cleanup());

describe('npm run bench -- --distributed (smoke run)', () => {
  it('reports every student view through the distributed gateway with its bare baseline, ratio and p99', async () => {
    run = await runBench('bench', { BENCH_DURATION_SECONDS: '1', BENCH_ROUNDS: '1', BENCH_CONNECTIONS: '4' }, ['--distributed']);
    if (run.code !== 0) throw new Error(`npm run bench -- --distributed exited ${run.code}\n${run.stdout}\n${run.stderr}`);
    const report = await run.result<DistributedReport>('distributed.json');
    expect(report.settings).toEqual({ connections: 4, durationSeconds: 1, warmupSeconds: 1, rounds: 1 });
    expect(report.routes.map((route) => route.name.replace(/\d{4}-W\d{2}/, '<week>').replace(/<\d+ courses>/, '<n courses>'))).toEqual([
      '/week/<week>?groupIds=<one group>',
      '/week/current?groupIds=<one group>',
      '/semesters/:id/courses',
      '/ical?courseIds=<n courses> (cached)',
    ]);
    for (const route of report.routes) {
      expect(route.bodyBytes).toBeGreaterThan(0);
      for (const side of [route.gateway, route.bare]) {
        expect(side.requestsPerSecond).toBeGreaterThan(0);
        expect(side.latencyP99Ms).toBeGreaterThanOrEqual(0);
        // Served, not throttled: the bench's rate limit is far above what it sends.
        expect(side.non2xx).toBe(0);
      }
      expect(route.ratio).toBeCloseTo(route.gateway.requestsPerSecond / route.bare.requestsPerSecond, 6);
      expect(route.pairRatios).toHaveLength(1);
      // Printed: the gateway's row with its ratio, then the bare row.
      const printed = new RegExp(`${escape(route.name)} \\(${route.bodyBytes} B\\)\\s+gateway\\s+\\d+\\s+[\\d.]+\\s+[\\d.]+.*\\d+ %.*\\n\\s+bare\\s+\\d+`);
      expect(run.stdout).toMatch(printed);
    }
    // The two ways of asking for this week answer the same bytes.
    expect(report.routes[0]!.bodyBytes).toBe(report.routes[1]!.bodyBytes);
  }, 600_000);
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
