import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';

export interface OwnedProcessSpec {
  name: string;
  command: string;
  args: string[];
  cwd: string;
  /** Added to this process's environment; an undefined value removes the variable. */
  env?: Record<string, string | undefined>;
  logFile: string;
  /** The signal that asks for a quick clean shutdown (PostgreSQL's is SIGINT, "fast"); default SIGTERM. */
  stopSignal?: NodeJS.Signals;
}

/**
 * A service process that a fault test owns: started, stopped (SIGTERM, then SIGKILL), paused (SIGSTOP,
 * as a hung process would be) and started again on the same data and ports, with its output in a log file.
 */
export class OwnedProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  constructor(readonly spec: OwnedProcessSpec) {}

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  start(): void {
    if (this.running) return;
    const log = openSync(this.spec.logFile, 'a');
    try {
      const env = Object.fromEntries(Object.entries({ ...process.env, ...this.spec.env }).filter(([, value]) => value !== undefined));
      const child = spawn(this.spec.command, this.spec.args, {
        cwd: this.spec.cwd,
        env,
        stdio: ['ignore', log, log],
        detached: true,
      });
      this.child = child;
      this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    } finally {
      closeSync(log);
    }
  }

  async stop(graceMs = 20_000): Promise<void> {
    if (!this.running) return;
    this.resume();
    this.child?.kill(this.spec.stopSignal ?? 'SIGTERM');
    const timer = setTimeout(() => this.child?.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** SIGKILL, as a crash would; resolves once the process is gone. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.child?.kill('SIGKILL');
    await this.exited;
  }

  pause(): void {
    if (this.running) this.child?.kill('SIGSTOP');
  }

  resume(): void {
    if (this.running) this.child?.kill('SIGCONT');
  }

  tail(lines = 60): string {
    try {
      return readFileSync(this.spec.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }

  /** Waits until `ready` holds; fails with the end of the log when the process exits or time runs out. */
  async waitUntil(what: string, ready: () => Promise<boolean>, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.child && !this.running) throw new Error(`${this.spec.name} exited while waiting for ${what}\n${this.tail()}`);
      if (await ready().catch(() => false)) return;
      if (Date.now() > deadline) throw new Error(`${this.spec.name}: ${what} not within ${timeoutMs} ms\n${this.tail()}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** True once something accepts TCP connections on 127.0.0.1:port. */
export function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.setTimeout(1_000, () => {
      socket.destroy();
      resolve(false);
    });
  });
}
