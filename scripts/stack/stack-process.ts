import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
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
}

/**
 * One Node process of the stack, run from TypeScript sources (tsx) in its own process group, so a Ctrl-C
 * in the terminal reaches only the stack, which then stops its children in order. Output goes to a log file.
 */
export class StackProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<number | null> = Promise.resolve(null);

  constructor(
    readonly spec: ProcessSpec,
    readonly logFile: string,
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
    const log = openSync(this.logFile, 'a');
    try {
      const child = spawn(process.execPath, ['--conditions=@timetable/source', '--import', 'tsx', this.spec.entry], {
        cwd: repoRoot,
        env: { ...process.env, ...this.spec.env },
        stdio: ['ignore', log, log],
        detached: true,
      });
      this.child = child;
      this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    } finally {
      closeSync(log);
    }
  }

  /** Polls the ready URL; fails early, with the end of the log, when the process exits meanwhile. */
  async waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.running) throw new Error(`${this.name} exited while starting\n${this.tail()}`);
      const response = await fetch(this.spec.readyUrl, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined);
      await response?.body?.cancel().catch(() => undefined);
      if (response?.ok) return;
      if (Date.now() > deadline) throw new Error(`${this.name} not ready within ${timeoutMs} ms (${this.spec.readyUrl})\n${this.tail()}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** SIGTERM (a drain), then SIGKILL after the grace period; resolves with the exit code. */
  async stop(graceMs = 15_000): Promise<number | null> {
    if (!this.running) return this.exited;
    this.child?.kill('SIGTERM');
    const timer = setTimeout(() => this.child?.kill('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** A crash: no drain, no goodbye. */
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
}
