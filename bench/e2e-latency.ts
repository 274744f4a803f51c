/**
 * `npm run bench:e2e`: end-to-end change latency in distributed mode. Starts a throw-away stack (one process
 * per service, the StarPlan simulator as upstream, real Kafka with the registry, PostgreSQL, Redis), creates a
 * developer and a global webhook that points at a signed-delivery receiver on 127.0.0.1, then renames one
 * upstream lecture BENCH_CHANGES times, one change at a time, and measures for each the time from the instant
 * the simulator applied it to the instant the receiver had the signed delivery of that rename. Contacts only
 * 127.0.0.1 and the shared infrastructure; stops every process it started on exit, on failure and on Ctrl-C.
 * Its parts are in bench/e2e/.
 */
import path from 'node:path';
import type { RunningStack } from '../scripts/stack/start-stack.js';
import { repoRoot } from '../scripts/stack/stack-process.js';
import { startE2eStack, stackPids, stopE2eStack, type StackWatch } from './e2e/e2e-stack.js';
import { interrupt } from './e2e/interrupt.js';
import { measure } from './e2e/measure.js';
import { DELIVERY_INTERVAL_SECONDS, SECRET, SYNC_INTERVAL_SECONDS, log } from './e2e/settings.js';
import { waitForOwnGateway } from './e2e/stack-api.js';
import { startSignedWebhookReceiver } from './support/signed-webhook-receiver.js';

async function main(): Promise<number> {
  const startedAt = new Date();
  const receiver = await startSignedWebhookReceiver(SECRET);
  const watch: StackWatch = { restarts: [], measuring: false };
  let stack: RunningStack | undefined;
  let pids: number[] = [];
  try {
    log(`starting the distributed stack (SYNC_INTERVAL_SECONDS=${SYNC_INTERVAL_SECONDS}, DELIVERY_INTERVAL_SECONDS=${DELIVERY_INTERVAL_SECONDS})`);
    stack = await startE2eStack(watch);
    pids = stackPids(stack);
    interrupt.signal.throwIfAborted();
    await waitForOwnGateway(stack, 120_000);
    log(`stack ${stack.namespace} ready at ${stack.gatewayUrl} (logs in ${path.relative(repoRoot, stack.logDir)})`);
    return (await measure(stack, receiver, startedAt, watch)) ? 0 : 1;
  } catch (error) {
    if (interrupt.signal.aborted) return 130;
    const cause = error instanceof Error && error.cause !== undefined ? `\ncaused by: ${String(error.cause)}` : '';
    process.stderr.write(`bench:e2e failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}${cause}\n`);
    return 1;
  } finally {
    if (stack) await stopE2eStack(stack, pids);
    await receiver.close();
  }
}

process.exit(await main());
