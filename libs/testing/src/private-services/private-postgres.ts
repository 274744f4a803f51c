import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { postgresAnswers } from '../probes.js';
import { OwnedProcess } from './owned-process.js';

/** The machine's PostgreSQL binaries (Debian's layout), the newest major first. */
function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a)) : [];
  const bin = majors.map((major) => path.join(root, major, 'bin')).find((candidate) => existsSync(path.join(candidate, 'initdb')));
  if (!bin) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql: a private cluster needs initdb and postgres');
  return bin;
}

/** PostgreSQL refuses to run as root: as root, run it as the `postgres` user (setpriv execs, so signals reach it). */
function asPostgresUser(command: string, args: string[]): { command: string; args: string[] } {
  if (process.getuid?.() !== 0) return { command, args };
  return { command: 'setpriv', args: ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', command, ...args] };
}

/**
 * A PostgreSQL cluster of the test's own, in a temporary folder on a free port, with trust authentication:
 * the fault tests stop and restart it without touching the machine's shared server.
 */
export class PrivatePostgres {
  readonly url: string;
  private readonly process: OwnedProcess;

  constructor(
    private readonly dir: string,
    readonly port: number,
  ) {
    this.url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const bin = postgresBin();
    const data = path.join(dir, 'data');
    const run = asPostgresUser(path.join(bin, 'postgres'), [
      '-D', data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dir}`,
      '-c', 'max_connections=300', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off',
    ]);
    this.process = new OwnedProcess({ name: 'postgres', ...run, cwd: dir, logFile: path.join(dir, 'postgres.log'), stopSignal: 'SIGINT' });
  }

  async start(): Promise<void> {
    if (!existsSync(path.join(this.dir, 'data', 'PG_VERSION'))) this.initialise();
    this.process.start();
    await this.process.waitUntil('connections', () => this.answers(), 60_000);
  }

  /** A fast shutdown: open transactions roll back, clients are disconnected. */
  stop(): Promise<void> {
    return this.process.stop();
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  answers(): Promise<boolean> {
    return postgresAnswers(this.url);
  }

  private initialise(): void {
    mkdirSync(this.dir, { recursive: true });
    if (process.getuid?.() === 0) {
      chmodSync(this.dir, 0o755);
      chownSync(this.dir, Number(execFileSync('id', ['-u', 'postgres']).toString()), Number(execFileSync('id', ['-g', 'postgres']).toString()));
    }
    const init = asPostgresUser(path.join(postgresBin(), 'initdb'), ['-D', path.join(this.dir, 'data'), '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8']);
    execFileSync(init.command, init.args, { cwd: this.dir, stdio: 'pipe' });
  }
}
