import { setTimeout as sleep } from 'node:timers/promises';
import type { IncomingEvent } from '../event-bus.js';
import { failureOf } from './failure-kind.js';

/** A record whose data its handler refused on every try: to be put aside with the last error. */
export interface UnapplicableRecord<T> {
  event: IncomingEvent<T>;
  error: unknown;
  attempts: number;
}

export interface IsolationSettings {
  /** Tries of one record on its own before it is put aside. */
  attempts: number;
  /** The pause before its second try, doubled before each further one. */
  firstDelayMs: number;
  /** Called after each record tried on its own (a Kafka consumer heartbeats), so a long search keeps the batch. */
  afterRecord(): Promise<void>;
}

/** How often a record whose data is refused is tried on its own before it is put aside. */
export const RECORD_ATTEMPTS = 3;
const DEFAULTS: IsolationSettings = { attempts: RECORD_ATTEMPTS, firstDelayMs: 200, afterRecord: () => Promise.resolve() };

type BatchHandler<T> = (events: IncomingEvent<T>[]) => Promise<void>;

/**
 * Applies a batch so that one record its handler cannot apply does not hold back the others. The batch is
 * tried whole; when its data is refused, its records are tried one by one up to the one that fails, which is
 * tried a few more times (a constraint can be a race with another replica) and returned to be put aside if
 * its data is still refused; the records after it are tried as a batch again. An infrastructure failure is
 * thrown at once, wherever it happens, so the caller retries as it does for any outage (the records already
 * applied are applied again: handlers are idempotent).
 */
export async function applyIsolating<T>(
  events: IncomingEvent<T>[],
  handleBatch: BatchHandler<T>,
  options: Partial<IsolationSettings> = {},
): Promise<UnapplicableRecord<T>[]> {
  const settings = { ...DEFAULTS, ...options };
  const unapplicable: UnapplicableRecord<T>[] = [];
  let pending = events;
  while (pending.length > 0) {
    try {
      await handleBatch(pending);
      return unapplicable;
    } catch (error) {
      if (failureOf(error).kind !== 'data') throw error;
    }
    const refused = await applyUntilRefused(pending, handleBatch, settings);
    // Every record applied on its own: only the batch as a whole was refused.
    if (!refused) return unapplicable;
    unapplicable.push(refused.record);
    pending = pending.slice(refused.index + 1);
  }
  return unapplicable;
}

async function applyUntilRefused<T>(
  events: IncomingEvent<T>[],
  handleBatch: BatchHandler<T>,
  settings: IsolationSettings,
): Promise<{ index: number; record: UnapplicableRecord<T> } | undefined> {
  for (const [index, event] of events.entries()) {
    const record = await applyAlone(event, handleBatch, settings);
    await settings.afterRecord();
    if (record) return { index, record };
  }
  return undefined;
}

async function applyAlone<T>(event: IncomingEvent<T>, handleBatch: BatchHandler<T>, settings: IsolationSettings): Promise<UnapplicableRecord<T> | undefined> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await handleBatch([event]);
      return undefined;
    } catch (error) {
      if (failureOf(error).kind !== 'data') throw error;
      if (attempt >= settings.attempts) return { event, error, attempts: attempt };
      await sleep(settings.firstDelayMs * 2 ** (attempt - 1));
    }
  }
}
