/**
 * `npm run stack [-- --replicas N]`: the distributed topology on this machine without Docker. Starts the
 * local Kafka and registry (scripts/infra-up.sh), then the simulator (unless UPSTREAM_BASE_URL names the
 * upstream), every service and the gateway as separate processes, prints the gateway URL, restarts a
 * process that dies, and on Ctrl-C stops them in reverse order. Every other variable of the environment
 * reaches every process unchanged. Data persists under the namespace STACK_NAMESPACE (default `local`).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startStack, type RunningStack } from './start-stack.js';
import { infrastructureFromEnv } from './stack-resources.js';
import { repoRoot } from './stack-process.js';

const { values } = parseArgs({ options: { replicas: { type: 'string', default: '1' } } });
const replicas = Number(values.replicas);
if (!Number.isInteger(replicas) || replicas < 1) {
  process.stderr.write(`--replicas must be a positive integer, not ${values.replicas}\n`);
  process.exit(2);
}

const infraUp = spawnSync('bash', [path.join(repoRoot, 'scripts/infra-up.sh')], { cwd: repoRoot, stdio: 'inherit' });
if (infraUp.status !== 0) process.exit(infraUp.status ?? 1);

const env = process.env;
const log = (line: string) => process.stdout.write(`[stack] ${line}\n`);
log(`starting ${replicas} replica(s) of catalog-api, changes, webhook-dispatcher and gateway`);
const starting = startStack({
  namespace: env.STACK_NAMESPACE ?? 'local',
  replicas,
  gatewayPort: Number(env.PORT ?? 3000),
  infrastructure: infrastructureFromEnv(env),
  ...(env.PUBLIC_BASE_URL ? { publicBaseUrl: env.PUBLIC_BASE_URL } : {}),
  ...(env.UPSTREAM_BASE_URL ? { upstreamBaseUrl: env.UPSTREAM_BASE_URL } : {}),
  onRestart: (name, exitCode, signal, delayMs) =>
    log(`${name} died (${signal ?? `exit ${exitCode}`}); restarting it in ${delayMs / 1000} s (see ${name}.log)`),
});

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  log(`${signal}: stopping every process in reverse order`);
  starting
    .then((stack: RunningStack) => stack.stop())
    .then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`stack stop failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));

starting.then(
  (stack) => {
    for (const member of stack.processes) log(`${member.name.padEnd(22)} ${member.url}  (pid ${member.pid})`);
    log(`upstream: ${stack.upstreamBaseUrl}`);
    log(`logs in ${stack.logDir}`);
    log(`gateway ready: ${stack.gatewayUrl}  (Ctrl-C stops the stack)`);
  },
  (error: unknown) => {
    process.stderr.write(`stack failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
