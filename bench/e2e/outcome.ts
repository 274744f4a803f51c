/** What bench:e2e's timed changes add up to: latency, losses, bad signatures, sync's runs, the target. */
import type { SignedWebhookReceiver } from '../support/signed-webhook-receiver.js';
import { deliveryOfRename } from './receiver.js';
import { TARGET_SECONDS } from './settings.js';
import type { SyncRun } from './stack-api.js';
import { summary, type Summary } from './statistics.js';
import type { TimedChanges } from './time-changes.js';

export interface Outcome {
  latency: Summary;
  lost: number;
  badSignatures: number;
  /** sync runs that started while measuring: their durations and the time from one start to the next. */
  runDurations: Summary;
  runPeriods: Summary;
  /** Deliveries while measuring that carry none of the timed renames, by event. */
  otherDeliveries: Record<string, number>;
  withinTarget: number;
  met: boolean;
}

export function outcomeOf(timed: TimedChanges, runs: SyncRun[], receiver: SignedWebhookReceiver): Outcome {
  const { measurements, measuredFrom, measuredUntil } = timed;
  const latencies = measurements.flatMap((measurement) => (measurement.latencyMs === null ? [] : [measurement.latencyMs]));
  const latency = summary(latencies);
  const lost = measurements.filter((measurement) => measurement.latencyMs === null).length;
  const badSignatures = measurements.filter((m) => m.latencyMs !== null && !(m.signatureValid && m.standardSignatureValid)).length;
  const measuredRuns = runs.filter((run) => run.startedAt >= measuredFrom && run.startedAt <= measuredUntil);
  const runDurations = summary(measuredRuns.map((run) => run.finishedAt - run.startedAt));
  const runPeriods = summary(measuredRuns.slice(1).map((run, index) => run.startedAt - (measuredRuns[index]?.startedAt ?? run.startedAt)));
  const otherDeliveries: Record<string, number> = {};
  for (const delivery of receiver.received.slice(timed.receivedBefore)) {
    if (measurements.some((m) => deliveryOfRename(m.name)(delivery))) continue;
    const event = delivery.body?.event ?? 'unparsable';
    otherDeliveries[event] = (otherDeliveries[event] ?? 0) + 1;
  }
  const withinTarget = latencies.filter((value) => value <= TARGET_SECONDS * 1000).length;
  const met = lost === 0 && latency.max <= TARGET_SECONDS * 1000;
  return { latency, lost, badSignatures, runDurations, runPeriods, otherDeliveries, withinTarget, met };
}
