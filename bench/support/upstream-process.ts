/** An upstream the benches read (the simulator, a replaying proxy, a bare server) in a process of its own. */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { procCpuSeconds } from './proc-cpu.js';

const repoRoot = path.resolve(import.meta.dirname, '..', '..');

export interface UpstreamProcess {
  stop: () => void;
  /** CPU seconds the process has used so far (from /proc). */
  cpuSeconds: () => Promise<number>;
}

/** A port nothing listens on now, for a child to listen on. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface UpstreamStart {
  /** What the error says did not start. */
  name: string;
  /** The script, relative to the repository, run under tsx. */
  script: string;
  env: Record<string, string>;
  /** Polled until it answers 2xx: then the process counts as started. */
  probeUrl: string;
  /** Node flags for the process. */
  flags?: readonly string[];
}

/** Runs `script` under tsx with `env` (and node `flags`), and waits until `probeUrl` answers 2xx. */
export function startUpstreamProcess(name: string, script: string, env: Record<string, string>, probeUrl: string): Promise<UpstreamProcess> {
  return startUpstream({ name, script, env, probeUrl });
}

/** Runs an upstream process as `start` describes, and waits until it answers. */
export async function startUpstream({ name, script, env, probeUrl, flags = [] }: UpstreamStart): Promise<UpstreamProcess> {
  const child = spawn(process.execPath, [...flags, '--conditions=@timetable/source', '--import', 'tsx', script], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: 'ignore',
  });
  // However this process ends (a failed start, an exception, running out of memory), the upstream goes with it:
  // an orphaned simulator at scale 100 keeps a core busy and skews every later measurement.
  const stop = () => child.kill('SIGTERM');
  process.once('exit', stop);
  const deadline = Date.now() + 180_000;
  for (;;) {
    const answered = await fetch(probeUrl).then((response) => response.ok, () => false);
    if (answered) return { stop, cpuSeconds: async () => (await procCpuSeconds(`/proc/${child.pid}/stat`)) ?? Number.NaN };
    if (Date.now() > deadline || child.exitCode !== null) {
      stop();
      throw new Error(`${name} did not start`);
    }
    await sleep(250);
  }
}

/**
 * V8 flags that keep a process serving as a busy server does across pauses of its one client: V8 takes a pause
 * for idleness, gives back memory and drops the bytecode of functions it has not run for a while, and the next
 * pass pays to get them back.
 */
export const BUSY_SERVER_V8_FLAGS = ['--no-memory-reducer', '--no-flush-bytecode'] as const;

/** The StarPlan simulator at `scale` on `port` (its base `/splan`), with feed validators when asked for. */
export function startSimulatorProcess(port: number, scale: number, validators = false, flags: readonly string[] = []): Promise<UpstreamProcess> {
  const env = { SIM_PORT: String(port), SIM_SCALE: String(scale), SIM_HOST: '127.0.0.1', LOG_LEVEL: 'warn', SIM_VALIDATORS: validators ? '1' : '0' };
  return startUpstream({ name: 'simulator', script: 'tools/starplan-sim/src/main.ts', env, probeUrl: `http://127.0.0.1:${port}/splan/json?m=getpus`, flags });
}
