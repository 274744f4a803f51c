/**
 * docker-compose.yml run under podman: Debian's docker-compose talks to podman's Docker-compatible API (what
 * `podman compose` does on newer podman) on a socket of this run's own, so the file is read by the reference
 * implementation of compose, with its interpolation, health-check conditions and recreation on change.
 * Debian bookworm's podman-compose (1.0.3) misreads this file: `${NAME:-}` stays literal, CMD health checks
 * with arguments are mis-quoted and `depends_on` conditions are ignored.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startHealthTicker, type HealthTicker } from './health-ticker.js';
import { containersConf, podman, projectContainers, repoRoot, type ContainerState } from './podman.js';

export interface ComposeStackOptions {
  /** The compose project: prefixes every container, network and volume, so nothing clashes with anything else. */
  project: string;
  /** The services to start (with what they depend on). */
  services: string[];
  /** Compose's variables: image names, published ports, settings. */
  variables: Record<string, string>;
}

const STATE = path.join(repoRoot, '.containers');

/** The podman API process a stack talks to, its socket, and the ticker that runs the containers' health checks. */
interface PodmanService {
  api: ChildProcess;
  socket: string;
  ticker: HealthTicker;
}

export class ComposeStack {
  private constructor(
    readonly options: ComposeStackOptions,
    private readonly podman: PodmanService,
    readonly logDir: string,
  ) {}

  static async start(options: ComposeStackOptions): Promise<ComposeStack> {
    const logDir = path.join(STATE, 'logs', options.project);
    mkdirSync(logDir, { recursive: true });
    const socket = path.join(STATE, `${options.project}.sock`);
    rmSync(socket, { force: true });
    const api = spawn('podman', ['system', 'service', '--time=0', `unix://${socket}`], {
      env: { ...process.env, CONTAINERS_CONF: containersConf },
      stdio: ['ignore', openSync(path.join(logDir, 'podman-service.log'), 'a'), openSync(path.join(logDir, 'podman-service.log'), 'a')],
    });
    await waitFor('the podman API socket', 30_000, async () => spawnSync('test', ['-S', socket]).status === 0);
    const stack = new ComposeStack(options, { api, socket, ticker: startHealthTicker(options.project) }, logDir);
    try {
      await stack.compose(['up', '-d', '--no-build', ...options.services]);
    } catch (error) {
      await stack.showUnhealthyLogs();
      await stack.down();
      throw error;
    }
    return stack;
  }

  /** Runs docker-compose on the project with the stack's variables (and `overrides`). */
  async compose(args: string[], overrides: Record<string, string> = {}): Promise<void> {
    const env = { ...process.env, ...this.options.variables, ...overrides, DOCKER_HOST: `unix://${this.podman.socket}`, COMPOSE_HTTP_TIMEOUT: '600' };
    const child = spawn('docker-compose', ['--ansi', 'never', '-p', this.options.project, '-f', path.join(repoRoot, 'docker-compose.yml'), ...args], {
      cwd: repoRoot,
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`docker-compose ${args.join(' ')} exited with ${code}`);
  }

  containers(): Promise<ContainerState[]> {
    return projectContainers(this.options.project);
  }

  /** Every started service healthy (or, for a one-shot like kafka-topics, exited 0). */
  async waitUntilHealthy(timeoutMs = 600_000): Promise<ContainerState[]> {
    let last: ContainerState[] = [];
    try {
      return await waitFor('every service to be healthy', timeoutMs, async () => {
        last = await this.containers();
        return last.length > 0 && last.every(isHealthyOrDone) ? last : undefined;
      });
    } catch (error) {
      const pending = last.filter((container) => !isHealthyOrDone(container)).map((container) => `${container.service}: ${container.status} ${container.health}`);
      throw new Error(`${(error as Error).message}; not ready: ${pending.join(', ')}`);
    }
  }

  /** The end of the log of every container that is not healthy, for a failed run's output. */
  async showUnhealthyLogs(lines = 60): Promise<void> {
    for (const container of (await this.containers().catch(() => [])).filter((candidate) => !isHealthyOrDone(candidate))) {
      const log = await podman(['logs', '--tail', String(lines), container.name], { mergeStderr: true }).catch((error: Error) => error.message);
      process.stderr.write(`----- last ${lines} lines of ${container.service} (${container.status} ${container.health}) -----\n${log}\n`);
    }
  }

  /** Keeps every container's log in logDir (they go with the containers). */
  async saveLogs(): Promise<void> {
    for (const container of await this.containers().catch(() => [])) {
      const log = await podman(['logs', container.name], { mergeStderr: true }).catch((error: Error) => error.message);
      writeFileSync(path.join(this.logDir, `${container.service}.log`), log);
    }
  }

  /** Removes the containers, network and volumes; the images stay (they are the next run's cache). */
  async down(): Promise<void> {
    await this.saveLogs();
    await this.podman.ticker.stop();
    try {
      await this.compose(['down', '--volumes', '--remove-orphans', '--timeout', '10']);
    } finally {
      await this.removeLeftovers();
      this.podman.api.kill('SIGTERM');
      rmSync(this.podman.socket, { force: true });
    }
  }

  /**
   * What `down` left behind: podman can restart a container under its restart policy between compose stopping
   * and removing it (seen with a dispatcher whose Kafka had just gone), and its network then cannot be removed
   * either. Left running, it would restart in a loop beside whatever runs next on the machine.
   */
  private async removeLeftovers(): Promise<void> {
    const { project } = this.options;
    const left = await projectContainers(project).catch(() => []);
    if (left.length > 0) await podman(['rm', '-f', '-t', '0', ...left.map((container) => container.name)]).catch(() => undefined);
    await podman(['network', 'rm', '-f', `${project}_default`]).catch(() => undefined);
  }
}

function isHealthyOrDone(container: ContainerState): boolean {
  if (container.status === 'exited') return container.exitCode === 0 && container.restartCount === 0;
  return container.status === 'running' && (container.healthIntervalMs === 0 || container.health === 'healthy');
}

export async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}${lastError ? ` (${String(lastError)})` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}
