/**
 * One route measured against a bare node:http server sending the same bytes, in the same run: the two take
 * turns, `rounds` times each, and each side reports its median run (two cores shared by servers and load
 * generator make single runs vary; alternating spreads any drift of the machine over both sides).
 */
import { captureResponse, startBareServer } from './bare-server.js';
import { loadTest, type LoadResult } from './load-test.js';
import { median } from './median.js';
import { procCpuSeconds } from './proc-cpu.js';
import type { RouteMeasurement } from './report.js';

export interface LoadSettings {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  rounds: number;
}

export interface RouteToMeasure {
  name: string;
  /** Path below the API base, as requested (`/week/2026-W50?groupIds=...`). */
  path: string;
}

interface MeasuredRun {
  load: LoadResult;
  cpuMicrosPerRequest: number | null;
}

async function measuredRun(url: string, statFile: string, settings: LoadSettings): Promise<MeasuredRun> {
  const before = await procCpuSeconds(statFile);
  const load = await loadTest({ url, connections: settings.connections, durationSeconds: settings.durationSeconds });
  const after = await procCpuSeconds(statFile);
  const cpuMicrosPerRequest = before === null || after === null || load.requests === 0 ? null : ((after - before) * 1e6) / load.requests;
  return { load, cpuMicrosPerRequest };
}

function medianRun(runs: LoadResult[]): LoadResult {
  const sorted = [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function medianCpu(runs: MeasuredRun[]): number | null {
  const values = runs.map((run) => run.cpuMicrosPerRequest);
  return values.every((value): value is number => value !== null) ? median(values) : null;
}

/**
 * Measures `route` under `api` (whose server is the process `serverPid`) against a bare server in this process.
 * The bare server answers what the route answered once, byte for byte.
 */
export async function measureSideBySide(api: string, serverPid: number | undefined, route: RouteToMeasure, settings: LoadSettings): Promise<RouteMeasurement> {
  const url = `${api}${route.path}`;
  const captured = await captureResponse(url);
  const bareServer = await startBareServer(captured);
  const serverStat = serverPid === undefined ? '' : `/proc/${serverPid}/stat`;
  const bareStat = `/proc/self/task/${process.pid}/stat`;
  try {
    await loadTest({ url, connections: settings.connections, durationSeconds: settings.warmupSeconds });
    await loadTest({ url: bareServer.url, connections: settings.connections, durationSeconds: settings.warmupSeconds });
    const gatewayRuns: MeasuredRun[] = [];
    const bareRuns: MeasuredRun[] = [];
    for (let round = 0; round < settings.rounds; round += 1) {
      gatewayRuns.push(await measuredRun(url, serverStat, settings));
      bareRuns.push(await measuredRun(bareServer.url, bareStat, settings));
    }
    const gateway = medianRun(gatewayRuns.map((run) => run.load));
    const bare = medianRun(bareRuns.map((run) => run.load));
    return {
      name: route.name,
      path: route.path,
      bodyBytes: captured.body.length,
      gateway,
      bare,
      ratio: gateway.requestsPerSecond / bare.requestsPerSecond,
      pairRatios: gatewayRuns.map((run, index) => run.load.requestsPerSecond / bareRuns[index]!.load.requestsPerSecond),
      cpuMicrosPerRequest: { gateway: medianCpu(gatewayRuns), bare: medianCpu(bareRuns) },
    };
  } finally {
    await bareServer.close();
  }
}
