/**
 * The podman commands the container tests use, against the compose project the runner started. Podman reads
 * its settings for this machine kind (runc, cgroupfs, explicit ulimits) from deploy/podman/containers.conf.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const containersConf = path.join(repoRoot, 'deploy/podman/containers.conf');

const run = promisify(execFile);

/** Runs podman; with `mergeStderr` (for `podman logs`) the output has the container's stderr in order too. */
export async function podman(args: string[], options: { timeoutMs?: number; mergeStderr?: boolean } = {}): Promise<string> {
  const [command, commandArgs] = options.mergeStderr ? ['sh', ['-c', 'exec podman "$@" 2>&1', 'podman', ...args]] : ['podman', args];
  try {
    const { stdout } = await run(command, commandArgs, {
      env: { ...process.env, CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? containersConf },
      maxBuffer: 64 * 1024 * 1024,
      timeout: options.timeoutMs ?? 120_000,
    });
    return stdout;
  } catch (error) {
    const failed = error as Error & { stderr?: string };
    throw new Error(`podman ${args.join(' ')} failed: ${failed.stderr?.trim() || failed.message}`);
  }
}

/** What the tests read of a container (`podman inspect`). */
export interface ContainerState {
  name: string;
  service: string;
  status: string;
  exitCode: number;
  /** Empty when the container has no health check. */
  health: string;
  restartCount: number;
  startedAt: string;
  /** The host's pid of the container's first process (its init, for `init: true`). */
  pid: number;
  /** The health check's interval in milliseconds, 0 without one. */
  healthIntervalMs: number;
}

interface Inspected {
  Name: string;
  RestartCount: number;
  Config: { Labels?: Record<string, string>; Healthcheck?: { Interval?: number } | null };
  State: { Status: string; ExitCode: number; Pid: number; StartedAt: string; Health?: { Status: string }; Healthcheck?: { Status: string } };
}

/** Every container of a compose project, running or not. */
export async function projectContainers(project: string): Promise<ContainerState[]> {
  const ids = (await podman(['ps', '-a', '-q', '--filter', `label=com.docker.compose.project=${project}`])).split('\n').filter(Boolean);
  if (ids.length === 0) return [];
  const inspected = JSON.parse(await podman(['inspect', '--type', 'container', ...ids])) as Inspected[];
  return inspected.map((container) => ({
    name: container.Name.replace(/^\//, ''),
    service: container.Config.Labels?.['com.docker.compose.service'] ?? '',
    status: container.State.Status,
    exitCode: container.State.ExitCode,
    health: container.State.Health?.Status ?? container.State.Healthcheck?.Status ?? '',
    restartCount: container.RestartCount,
    startedAt: container.State.StartedAt,
    pid: container.State.Pid,
    healthIntervalMs: (container.Config.Healthcheck?.Interval ?? 0) / 1e6,
  }));
}

export async function serviceContainer(project: string, service: string): Promise<ContainerState> {
  const found = (await projectContainers(project)).find((container) => container.service === service);
  if (!found) throw new Error(`no container of ${service} in compose project ${project}`);
  return found;
}

/** A query on one of the compose PostgreSQL's databases, through psql in its container; rows as tab-separated fields. */
export async function psql(project: string, database: string, sql: string): Promise<string[][]> {
  const postgres = await serviceContainer(project, 'postgres');
  const output = await podman(['exec', postgres.name, 'psql', '-U', 'timetable', '-d', database, '-AtX', '-F', '\t', '-c', sql]);
  return output.split('\n').filter(Boolean).map((line) => line.split('\t'));
}
