/**
 * One bench:e2e measurement on a running stack: subscribe the receiver, warm up, time the renames, split
 * each latency, then print and write the report. True when nothing was lost, every signature verified and no
 * process restarted while measuring.
 */
import type { RunningStack } from '../../scripts/stack/start-stack.js';
import type { SignedWebhookReceiver } from '../support/signed-webhook-receiver.js';
import type { StackWatch } from './e2e-stack.js';
import { sleep } from './interrupt.js';
import { outcomeOf } from './outcome.js';
import { subscribeReceiver } from './receiver.js';
import { printReport, writeResult } from './report.js';
import { CHANGES, DELIVERY_INTERVAL_SECONDS, log } from './settings.js';
import { syncRunsSince } from './stack-api.js';
import { newRenameTarget, splitLatencies, timeChanges, warmUp } from './time-changes.js';
import { pickLecture } from './upstream-changes.js';

export async function measure(stack: RunningStack, receiver: SignedWebhookReceiver, startedAt: Date, watch: StackWatch): Promise<boolean> {
  const webhookId = await subscribeReceiver(stack, receiver);
  const lecture = await pickLecture(stack);
  log(`webhook ${webhookId} -> ${receiver.url}; renaming lecture ${lecture.id} ("${lecture.name}") ${CHANGES} times`);

  const target = newRenameTarget(lecture.id);
  await warmUp(stack, receiver, target);
  const timed = await timeChanges(stack, receiver, target, watch);
  const restartsWhileMeasuring = watch.restarts.filter((restart) => restart.duringMeasurement).length;

  // A late duplicate would arrive within a couple of delivery cycles.
  await sleep(2 * DELIVERY_INTERVAL_SECONDS * 1000);
  const runs = await syncRunsSince(stack, timed.measuredFrom - 60_000);
  await splitLatencies(stack, receiver, timed, runs);

  const outcome = outcomeOf(timed, runs, receiver);
  printReport(timed.measurements, outcome, restartsWhileMeasuring);
  await writeResult({ startedAt, namespace: stack.namespace, lecture, outcome, restarts: watch.restarts, measurements: timed.measurements });
  return outcome.lost === 0 && outcome.badSignatures === 0 && restartsWhileMeasuring === 0;
}
