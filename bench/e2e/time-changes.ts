/**
 * bench:e2e's measurement: a warm-up rename, then one rename at a time, each timed from the instant the
 * simulator applied it to the instant the receiver had its signed delivery; afterwards each delivered change is
 * split into sync's share, the path from commit to the attempt, and the POST.
 */
import { randomBytes } from 'node:crypto';
import type { RunningStack } from '../../scripts/stack/start-stack.js';
import type { ReceivedWebhook, SignedWebhookReceiver } from '../support/signed-webhook-receiver.js';
import type { StackWatch } from './e2e-stack.js';
import { interrupt, sleep } from './interrupt.js';
import { deliveryOfRename } from './receiver.js';
import { CHANGE_TIMEOUT_MS, CHANGES, DELIVERY_INTERVAL_SECONDS, SYNC_INTERVAL_SECONDS, log } from './settings.js';
import { detectedAt, type SyncRun } from './stack-api.js';
import { renameLecture } from './upstream-changes.js';

export interface ChangeMeasurement {
  index: number;
  name: string;
  /** Random pause before this change, so changes fall on every phase of the sync cycle. */
  pauseMs: number;
  appliedAt: string;
  receivedAt: string | null;
  latencyMs: number | null;
  changeId: string | null;
  webhookId: string | null;
  signatureValid: boolean;
  standardSignatureValid: boolean;
  /** Deliveries of this same change that arrived more than once (at-least-once), seen by the end of the run. */
  copies: number;
  /** sync run that detected it started, relative to appliedAt (negative: a run already under way read it). */
  runStartOffsetMs: number | null;
  /** Applied -> the change log's createdAt (end of the detecting run's fetch and diff). */
  appliedToDetectedMs: number | null;
  /** createdAt -> the delivery body's timestamp: commit, relay, Kafka, dispatcher consumer, delivery cycle, claim, sign. */
  detectedToSentMs: number | null;
  /** Body timestamp -> receipt: the POST itself. */
  sentToReceivedMs: number | null;
}

export interface TimedChanges {
  measurements: ChangeMeasurement[];
  /** The delivery of each change that arrived, by its index. */
  deliveries: Map<number, ReceivedWebhook>;
  measuredFrom: number;
  measuredUntil: number;
  /** How many deliveries the receiver had before the first timed change. */
  receivedBefore: number;
}

/** The lecture and the tag that names this run's renames. */
export interface RenameTarget {
  lectureId: number;
  tag: string;
}

export const newRenameTarget = (lectureId: number): RenameTarget => ({ lectureId, tag: randomBytes(3).toString('hex') });

/**
 * Warm-up (not counted): the first delivery to a new host, and whatever of the first sync the dispatcher
 * was still matching when the webhook was created. Then wait until the receiver has been quiet a while.
 */
export async function warmUp(stack: RunningStack, receiver: SignedWebhookReceiver, target: RenameTarget): Promise<void> {
  const warmUpName = `E2E ${target.tag} warm-up`;
  await renameLecture(stack, target.lectureId, warmUpName);
  await receiver.waitFor(deliveryOfRename(warmUpName), CHANGE_TIMEOUT_MS, interrupt.signal);
  const quietMs = Math.max(3_000, 2 * DELIVERY_INTERVAL_SECONDS * 1000);
  while (Date.now() - (receiver.received.at(-1)?.receivedAt ?? 0) < quietMs) await sleep(250);
  log(`warm-up delivered; ${receiver.received.length} deliveries so far, none for ${quietMs / 1000} s: measuring`);
}

/** CHANGES renames one at a time, each after a random pause, with `watch.measuring` set meanwhile. */
export async function timeChanges(stack: RunningStack, receiver: SignedWebhookReceiver, target: RenameTarget, watch: StackWatch): Promise<TimedChanges> {
  const measuredFrom = Date.now();
  watch.measuring = true;
  const receivedBefore = receiver.received.length;
  const measurements: ChangeMeasurement[] = [];
  const deliveries = new Map<number, ReceivedWebhook>();
  for (let index = 1; index <= CHANGES; index += 1) {
    const pauseMs = Math.round(Math.random() * (SYNC_INTERVAL_SECONDS + 1) * 1000);
    await sleep(pauseMs);
    const name = `E2E ${target.tag} #${index}`;
    const appliedAt = await renameLecture(stack, target.lectureId, name);
    const delivery = await receiver.waitFor(deliveryOfRename(name), CHANGE_TIMEOUT_MS, interrupt.signal).catch((error: unknown) => {
      if (interrupt.signal.aborted) throw error;
      log(`#${index}: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    });
    if (delivery) deliveries.set(index, delivery);
    measurements.push({
      index,
      name,
      pauseMs,
      appliedAt: new Date(appliedAt).toISOString(),
      receivedAt: delivery ? new Date(delivery.receivedAt).toISOString() : null,
      latencyMs: delivery ? delivery.receivedAt - appliedAt : null,
      changeId: delivery?.body?.id ?? null,
      webhookId: delivery?.webhookId ?? null,
      signatureValid: delivery?.signatureValid ?? false,
      standardSignatureValid: delivery?.standardSignatureValid ?? false,
      copies: 0,
      runStartOffsetMs: null,
      appliedToDetectedMs: null,
      detectedToSentMs: null,
      sentToReceivedMs: null,
    });
    log(`#${index}/${CHANGES}: ${delivery ? `${delivery.receivedAt - appliedAt} ms` : 'lost'}`);
  }
  const measuredUntil = Date.now();
  watch.measuring = false;
  return { measurements, deliveries, measuredFrom, measuredUntil, receivedBefore };
}

/** Fills in each delivered change's copies and its split, from the change log and sync's runs. */
export async function splitLatencies(stack: RunningStack, receiver: SignedWebhookReceiver, timed: TimedChanges, runs: SyncRun[]): Promise<void> {
  for (const measurement of timed.measurements) {
    const delivery = timed.deliveries.get(measurement.index);
    if (!delivery?.body?.id) continue;
    const copies = receiver.received.filter((candidate) => candidate.body?.id === delivery.body?.id).length;
    measurement.copies = copies - 1;
    const appliedAt = Date.parse(measurement.appliedAt);
    const sentAt = Date.parse(delivery.body.timestamp ?? '');
    const detected = await detectedAt(stack, delivery.body.id);
    const run = detected === undefined ? undefined : runs.find((candidate) => candidate.finishedAt === detected);
    measurement.appliedToDetectedMs = detected === undefined ? null : detected - appliedAt;
    measurement.runStartOffsetMs = run ? run.startedAt - appliedAt : null;
    measurement.detectedToSentMs = detected === undefined || Number.isNaN(sentAt) ? null : sentAt - detected;
    measurement.sentToReceivedMs = Number.isNaN(sentAt) ? null : delivery.receivedAt - sentAt;
  }
}
