/** The printed table and the JSON file of one benchmark run. */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { LoadResult } from './load-test.js';

export interface RouteMeasurement {
  name: string;
  path: string;
  bodyBytes: number;
  gateway: LoadResult;
  bare: LoadResult;
  /** gateway requests/s divided by the bare server's, on the same bytes in the same run (their median runs). */
  ratio: number;
  /** The same ratio for each round's pair of neighbouring runs, in order. */
  pairRatios: number[];
  /**
   * CPU (user and system) per request, the median over the rounds: of the thread that answers (embedded, where
   * both servers share the main thread) or of the gateway's process and the bare server's thread (distributed).
   * It moves less than throughput when the machine does, and shows what the gateway's own work costs. Null
   * where /proc cannot be read.
   */
  cpuMicrosPerRequest: { gateway: number | null; bare: number | null };
}

export interface ColdRender {
  name: string;
  path: string;
  events: number;
  /** The very first render of the process (cold code paths as well as a cold cache). */
  firstMs: number;
  /** Cache-miss renders after a cache bump, in order. */
  samplesMs: number[];
  medianMs: number;
}

export interface BenchReport {
  startedAt: string;
  node: string;
  cpus: number;
  connections: number;
  durationSeconds: number;
  /** Measured runs per server and route; each row is the median run. */
  rounds: number;
  readyMs: number;
  /** Resident set size of this process (the whole embedded system and the harness) idle after the first sync. */
  restRssBytes: number;
  routes: RouteMeasurement[];
  /** The semester feed, a personal feed of courses, and a personal feed of whole groups past 1,500 events. */
  icalCold: ColdRender[];
}

const fixed = (value: number, digits = 1) => value.toFixed(digits);

function row(cells: string[], widths: number[]): string {
  return cells.map((cell, index) => (index === 0 ? cell.padEnd(widths[index] ?? 0) : cell.padStart(widths[index] ?? 0))).join('  ');
}

/** The table of routes, each with its gateway and bare server rows, as every throughput bench prints it. */
export function formatRouteTable(routes: RouteMeasurement[]): string[] {
  const header = ['route', 'server', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'CPU µs/req', 'ratio', 'pairs'];
  const widths = [46, 8, 10, 8, 8, 8, 7, 10, 6, 11];
  const lines = [row(header, widths), '-'.repeat(widths.reduce((sum, width) => sum + width + 2, -2))];
  for (const route of routes) {
    const pairs = route.pairRatios.map((ratio) => Math.round(ratio * 100));
    for (const [server, result] of [['gateway', route.gateway], ['bare', route.bare]] as const) {
      const cpu = route.cpuMicrosPerRequest[server];
      lines.push(
        row(
          [
            server === 'gateway' ? `${route.name} (${route.bodyBytes} B)` : '',
            server,
            fixed(result.requestsPerSecond, 0),
            fixed(result.latencyP50Ms),
            fixed(result.latencyP99Ms),
            String(result.non2xx),
            String(result.errors + result.timeouts),
            cpu === null ? 'n/a' : fixed(cpu),
            server === 'gateway' ? `${fixed(route.ratio * 100, 0)} %` : '',
            server === 'gateway' ? `${Math.min(...pairs)}-${Math.max(...pairs)} %` : '',
          ],
          widths,
        ),
      );
    }
  }
  return lines;
}

export function formatReport(report: BenchReport): string {
  const lines = formatRouteTable(report.routes);
  lines.push(
    '',
    `${report.connections} connections, median of ${report.rounds} alternating runs of ${report.durationSeconds} s per server, ${report.cpus} CPUs, Node ${report.node}`,
    'CPU µs/req: user and system CPU of the main thread (where both servers answer) per request, median run; pairs: the lowest and highest ratio of neighbouring runs',
    `ready (health and first sync): ${fixed(report.readyMs / 1000, 2)} s; RSS at rest after it: ${fixed(report.restRssBytes / 2 ** 20, 0)} MB`,
    ...report.icalCold.map(
      (cold) =>
        `cold ${cold.name} render (${cold.events} events): first ${fixed(cold.firstMs)} ms, after a cache bump median ${fixed(cold.medianMs)} ms [${cold.samplesMs.map((ms) => fixed(ms)).join(', ')}]`,
    ),
    'targets (bench/README.md): ratio >= 70 % and p99 <= 25 ms for the one-group week (explicit and current) and semester courses, >= 80 % for the unfiltered week,',
    '  >= 60 % for the cached feeds; cold feeds <= 100 ms for 1,500 events; ready <= 8 s; RSS at rest <= 250 MB',
  );
  return lines.join('\n');
}

export async function writeReport(file: string, report: BenchReport): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
}
