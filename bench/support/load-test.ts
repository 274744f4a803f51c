/**
 * One autocannon run in a child process: the load generator gets its own core instead of competing with the
 * server for the event loop it measures. The child counts response bodies without decoding them
 * (autocannon-without-bodies.mjs), so what a body says does not change what the client costs.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';

const run = promisify(execFile);
const autocannonCli = createRequire(import.meta.url).resolve('autocannon');
const withoutBodies = new URL('./autocannon-without-bodies.mjs', import.meta.url).href;

export interface LoadResult {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

export interface LoadOptions {
  url: string;
  connections: number;
  durationSeconds: number;
}

interface AutocannonJson {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

export async function loadTest(options: LoadOptions): Promise<LoadResult> {
  const args = ['--import', withoutBodies, autocannonCli, '-j', '-n', '-c', String(options.connections), '-d', String(options.durationSeconds), options.url];
  const { stdout } = await run(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 });
  const result = JSON.parse(stdout) as AutocannonJson;
  return {
    requestsPerSecond: result.requests.average,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}
