/** The printed table of the distributed bench: each route's gateway and bare rows, ratio and p99. */
import type { LoadSettings, SideBySide } from './side-by-side.js';

export interface SideBySideReport {
  node: string;
  cpus: number;
  settings: LoadSettings;
  /** From the start call until the gateway was ready and sync's first run was on Kafka. */
  stackReadyMs: number;
  /** Stack processes the supervisor restarted during the run. */
  restarts: string[];
  routes: SideBySide[];
}

const fixed = (value: number, digits = 1) => value.toFixed(digits);

function row(cells: string[], widths: number[]): string {
  return cells.map((cell, index) => (index === 0 ? cell.padEnd(widths[index] ?? 0) : cell.padStart(widths[index] ?? 0))).join('  ');
}

export function formatSideBySide(report: SideBySideReport): string {
  const header = ['route', 'server', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'CPU µs/req', 'ratio', 'pairs'];
  const widths = [46, 8, 10, 8, 8, 8, 7, 10, 6, 11];
  const lines = [row(header, widths), '-'.repeat(widths.reduce((sum, width) => sum + width + 2, -2))];
  for (const route of report.routes) {
    const pairs = route.pairRatios.map((ratio) => Math.round(ratio * 100));
    for (const [server, result] of [['gateway', route.gateway], ['bare', route.bare]] as const) {
      const cpu = route.cpuMicrosPerRequest[server];
      const first = server === 'gateway';
      lines.push(
        row(
          [
            first ? `${route.name} (${route.bodyBytes} B)` : '',
            server,
            fixed(result.requestsPerSecond, 0),
            fixed(result.latencyP50Ms),
            fixed(result.latencyP99Ms),
            String(result.non2xx),
            String(result.errors + result.timeouts),
            cpu === null ? 'n/a' : fixed(cpu),
            first ? `${fixed(route.ratio * 100, 0)} %` : '',
            first ? `${Math.min(...pairs)}-${Math.max(...pairs)} %` : '',
          ],
          widths,
        ),
      );
    }
  }
  const { connections, rounds, durationSeconds } = report.settings;
  lines.push(
    '',
    `distributed stack (gateway, Redis for cache and limits), ${connections} connections, median of ${rounds} alternating runs of ${durationSeconds} s per server, ${report.cpus} CPUs, Node ${report.node}`,
    'CPU µs/req: the gateway process (all its threads) and the bare server\'s thread per request, median run; pairs: the lowest and highest ratio of neighbouring runs',
    `stack ready (gateway and first sync): ${fixed(report.stackReadyMs / 1000, 1)} s${report.restarts.length > 0 ? `; restarted during the run: ${report.restarts.join(', ')}` : ''}`,
    'targets (bench/README.md): ratio >= 50 % and p99 <= 25 ms through the distributed gateway; >= 60 % for the cached feeds',
  );
  return lines.join('\n');
}
