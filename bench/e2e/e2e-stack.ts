/**
 * Starting and stopping bench:e2e's throw-away distributed stack: the shared infrastructure from the
 * environment, the bench's intervals, loopback webhooks allowed, and every restart of a process recorded.
 */
import { randomBytes } from 'node:crypto';
import { startStack, type RunningStack } from '../../scripts/stack/start-stack.js';
import { infrastructureFromEnv } from '../../scripts/stack/stack-resources.js';
import { DELIVERY_INTERVAL_SECONDS, SYNC_INTERVAL_SECONDS, log } from './settings.js';

const env = process.env;

export interface Restart {
  process: string;
  at: string;
  duringMeasurement: boolean;
}

/** What happened to the stack's processes; `measuring` is set while changes are timed (a restart spoils them). */
export interface StackWatch {
  restarts: Restart[];
  measuring: boolean;
}

export function startE2eStack(watch: StackWatch): Promise<RunningStack> {
  return startStack({
    namespace: `bench_e2e_${randomBytes(3).toString('hex')}`,
    ephemeral: true,
    readyTimeoutMs: 300_000,
    infrastructure: infrastructureFromEnv(env),
    env: {
      LOG_LEVEL: env.LOG_LEVEL ?? 'info',
      SYNC_INTERVAL_SECONDS: String(SYNC_INTERVAL_SECONDS),
      DELIVERY_INTERVAL_SECONDS: String(DELIVERY_INTERVAL_SECONDS),
      // The receiver is on loopback, which the dispatcher refuses unless the range is allowed.
      WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
      // The bench's own few API calls must never meet the default 10/1s tier.
      RATE_LIMITS: '1000000/1s',
    },
    onRestart: (name, exitCode, signal) => {
      watch.restarts.push({ process: name, at: new Date().toISOString(), duringMeasurement: watch.measuring });
      log(`WARNING: ${name} died (${signal ?? `exit ${exitCode}`}) and is being restarted${watch.measuring ? "; this run's numbers include that" : ''}`);
    },
  });
}

/** The process ids of the stack's members now (a restarted member has a new one). */
export const stackPids = (stack: RunningStack): number[] => stack.processes.flatMap((member) => (member.pid === undefined ? [] : [member.pid]));

/** Stops the stack, then checks that none of the processes it ever had (`pids` and its current ones) still runs. */
export async function stopE2eStack(stack: RunningStack, pids: number[]): Promise<void> {
  const every = [...new Set([...pids, ...stackPids(stack)])];
  log('stopping the stack (its databases and topics are dropped)');
  await stack.stop().catch((error: unknown) => process.stderr.write(`stopping the stack failed: ${String(error)}\n`));
  const alive = every.filter(isAlive);
  if (alive.length > 0) process.stderr.write(`processes still running after stop: ${alive.join(', ')}\n`);
  else log(`all ${every.length} stack processes have exited`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
