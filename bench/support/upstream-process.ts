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

/**
 * Runs `script` (relative to the repository) under tsx with `env`, and waits until `probeUrl` answers 2xx.
 */
export async function startUpstreamProcess(name: string, script: string, env: Record<string, string>, probeUrl: string): Promise<UpstreamProcess> {
  const child = spawn(process.execPath, ['--conditions=@timetable/source', '--import', 'tsx', script], {
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

/** The StarPlan simulator at `scale` on `port` (its base `/splan`), answering as StarPlan does (no validators). */
export function startSimulatorProcess(port: number, scale: number): Promise<UpstreamProcess> {
  const env = { SIM_PORT: String(port), SIM_SCALE: String(scale), SIM_HOST: '127.0.0.1', LOG_LEVEL: 'warn', SIM_VALIDATORS: '0' };
  return startUpstreamProcess('simulator', 'tools/starplan-sim/src/main.ts', env, `http://127.0.0.1:${port}/splan/json?m=getpus`);
}
