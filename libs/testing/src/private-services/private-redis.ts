import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { OwnedProcess, portAnswers } from './owned-process.js';

/** A redis-server of the test's own on a free port, nothing kept on disk, so a test may stop it at will. */
export class PrivateRedis {
  readonly url: string;
  private readonly process: OwnedProcess;

  constructor(
    dir: string,
    readonly port: number,
  ) {
    this.url = `redis://127.0.0.1:${port}`;
    this.process = new OwnedProcess({
      name: 'redis',
      command: 'redis-server',
      args: ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir],
      cwd: dir,
      logFile: path.join(dir, 'redis.log'),
    });
  }

  async start(): Promise<void> {
    this.process.start();
    await this.process.waitUntil('connections', () => portAnswers(this.port), 30_000);
  }

  stop(): Promise<void> {
    return this.process.stop();
  }

  /** Runs a redis-cli command against this server (e.g. ACL rules that make one command fail). */
  cli(...args: string[]): string {
    return execFileSync('redis-cli', ['-h', '127.0.0.1', '-p', String(this.port), ...args]).toString().trim();
  }
}
