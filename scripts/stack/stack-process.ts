import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, closeSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ProcessSpec {
  /** Unique in the stack: `catalog-api`, `catalog-api-2`, `gateway`, ... */
  name: string;
  /** Entry module, relative to the repository root. */
  entry: string;
  env: Record<string, string>;
  /** Base URL the process serves. */
  url: string;
  /** Answers 2xx once the process is ready for traffic. */
  readyUrl: string;
  /** Node options before the entry, e.g. the heap cap the service is deployed with. */
  nodeOptions?: string[];
}

/** Restart delays after a process died unasked: 1, 2, 4, ... seconds, at most 30. */
const FIRST_RESTART_DELAY_MS = 1_000;
const MAX_RESTART_DELAY_MS = 30_000;
/** A process that ran this long before dying starts again from the shortest delay. */
const HEALTHY_RUN_MS = 60_000;

/**
 * One Node process of the stack, run from TypeScript sources (tsx) in its own process group, so a Ctrl-C
 * in the terminal reaches only the stack, which then stops its children in order. Output goes to a log file.
 *
 * Once it has been ready, the process is supervised as a platform would: when it dies without being asked
 * to stop (a crash, SIGKILL, a consumer that gave up and exited non-zero), it is started again after a
 * backoff, and the restart is written to its log and reported through `onRestart`.
 */
export class StackProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<number | null> = Promise.resolve(null);
  /** True while the stack wants this process running; `stop()` clears it, `kill()` does not. */
  private wanted = false;
  private supervised = false;
  private restartDelayMs = FIRST_RESTART_DELAY_MS;
  private restartTimer: NodeJS.Timeout | undefined;
  private startedAt = 0;
  restarts = 0;

  constructor(
    readonly spec: ProcessSpec,
    readonly logFile: string,
    private readonly onRestart: (name: string, exitCode: number | null, signal: string | null, delayMs: number) => void = () => undefined,
  ) {}

  get name(): string {
    return this.spec.name;
  }

  get url(): string {
    return this.spec.url;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  start(): void {
    this.wanted = true;
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    const log = openSync(this.logFile, 'a');
    try {
      const child = spawn(process.execPath, [...(this.spec.nodeOptions ?? []), '--conditions=@timetable/source', '--import', 'tsx', this.spec.entry], {
        cwd: repoRoot,
        env: { ...process.env, ...this.spec.env },
        stdio: ['ignore', log, log],
        detached: true,
      });
      this.child = child;
      this.startedAt = Date.now();
      this.exited = new Promise((resolve) =>
        child.once('exit', (code, signal) => {
          resolve(code);
          this.onExit(child, code, signal);
        }),
      );
    } finally {
      closeSync(log);
    }
  }

  /** Polls the ready URL; fails early, with the end of the log, when the process exits meanwhile. */
  async waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.running && !this.restartTimer) throw new Error(`${this.name} exited while starting\n${this.tail()}`);
      const response = await fetch(this.spec.readyUrl, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined);
      await response?.body?.cancel().catch(() => undefined);
      if (response?.ok && this.running) {
        this.supervised = true;
        return;
      }
      if (Date.now() > deadline) throw new Error(`${this.name} not ready within ${timeoutMs} ms (${this.spec.readyUrl})\n${this.tail()}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** SIGTERM (a drain), then SIGKILL after the grace period; resolves with the exit code. Not restarted. */
  async stop(graceMs = 15_000): Promise<number | null> {
    this.wanted = false;
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    if (!this.running) return this.exited;
    this.child?.kill('SIGTERM');
    const timer = setTimeout(() => this.child?.kill('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** A crash: no drain, no goodbye. The supervisor brings the process back. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.child?.kill('SIGKILL');
    await this.exited;
  }

  tail(lines = 40): string {
    try {
      const text = readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
      return `----- last ${lines} lines of ${this.logFile} -----\n${text}`;
    } catch {
      return `(no log at ${this.logFile})`;
    }
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (child !== this.child || !this.wanted || !this.supervised) return;
    if (Date.now() - this.startedAt >= HEALTHY_RUN_MS) this.restartDelayMs = FIRST_RESTART_DELAY_MS;
    const delayMs = this.restartDelayMs;
    this.restartDelayMs = Math.min(MAX_RESTART_DELAY_MS, delayMs * 2);
    this.restarts += 1;
    const line = { time: Date.now(), level: 50, msg: 'stack: process died; restarting', process: this.name, exitCode: code, signal, delayMs };
    appendFileSync(this.logFile, `${JSON.stringify(line)}\n`);
    this.onRestart(this.name, code, signal, delayMs);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.wanted) this.start();
    }, delayMs);
  }
}
