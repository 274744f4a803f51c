/** The printed table of the distributed bench: each route's gateway and bare rows, ratio and p99. */
import { formatRouteTable, type RouteMeasurement } from './report.js';
import type { LoadSettings } from './side-by-side.js';

export interface SideBySideReport {
  node: string;
  cpus: number;
  settings: LoadSettings;
  /** From the start call until the gateway was ready and sync's first run was on Kafka. */
  stackReadyMs: number;
  /** Stack processes the supervisor restarted during the run. */
  restarts: string[];
  routes: RouteMeasurement[];
}

const fixed = (value: number, digits = 1) => value.toFixed(digits);

export function formatSideBySide(report: SideBySideReport): string {
  const lines = formatRouteTable(report.routes);
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
