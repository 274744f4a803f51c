import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { captureLogger } from '@timetable/testing';
import type { EndpointBreakers } from '../src/features/breaker/endpoint-breakers.js';
import type { AttemptResult } from '../src/features/delivery/attempt-exchange.js';
import { DeliveryDispatcher } from '../src/features/delivery/delivery-dispatcher.js';
import { CLAIM_AHEAD_FACTOR } from '../src/features/delivery/dispatcher-settings.js';
import type { ClaimedDelivery, ClaimRequest, DeliveryStore } from '../src/features/delivery/delivery-store.js';
import { dueDeliveries } from '../src/features/delivery/delivery-metrics.js';
import { SLOW_AFTER_MS } from '../src/features/delivery/host-reputation.js';
import type { HttpSender, PostOptions } from '../src/features/delivery/http-sender.js';
import { RECORD_DELAY_MS } from '../src/features/delivery/outcome-recorder.js';

/**
 * When the delivery cycle claims. It waits for an attempt to end before it looks again, but the leases that
 * outcomes hold until they are written take room too, so a write must wake it. The dispatcher here runs on
 * a store and a sender in memory, and its timers run on the test's clock: what it does within
 * RECORD_DELAY_MS of that clock cannot be the end of its wait for an attempt, which is SLOW_AFTER_MS.
 */
/** Two attempts at once, one per host. */
const SETTINGS = { intervalSeconds: 3600, retryDelaysSeconds: [60], timeoutMs: 30_000, concurrency: 2, hostConcurrency: 1, drainTimeoutMs: 100 };
const MAX_HELD = SETTINGS.concurrency * CLAIM_AHEAD_FACTOR;

function delivery(host: string): ClaimedDelivery {
  return {
    id: randomUUID(), claimToken: randomUUID(), leaseUntil: new Date(Date.now() + 3_600_000), messageId: randomUUID(), eventType: 'course.updated',
    attempts: 0, webhookId: host, url: `https://${host}/hook`, host, developerId: host, secret: null, webhookDeleted: false, data: null,
  };
}

/**
 * Due deliveries per host; a claim takes from each host in turn, as many as it asks for, and with
 * `capAtHostLimit` no more than the host limit's worth of leases held per host (as the real claim caps a host
 * that gets no leases ahead: slow, not yet seen answering, or shared with another dispatcher). A lease is
 * held until its outcome or release is written. Records what each claim asked for.
 */
function storeInMemory(due: Record<string, number>, { capAtHostLimit = false } = {}) {
  const queues = Object.entries(due).map(([host, count]) => Array.from({ length: count }, () => delivery(host)));
  const held = new Map<string, number>();
  const hostOf = new Map<string, string>();
  const asked: number[] = [];
  let written = 0;
  const free = (leases: { id: string }[]) => {
    for (const { id } of leases) held.set(hostOf.get(id)!, held.get(hostOf.get(id)!)! - 1);
  };
  const store = {
    countDue: async () => queues.reduce((sum, queue) => sum + queue.length, 0),
    claimDue: async (request: ClaimRequest) => {
      asked.push(request.limit);
      const claimed: ClaimedDelivery[] = [];
      const mayTake = (queue: ClaimedDelivery[]) => queue.length > 0 && (!capAtHostLimit || (held.get(queue[0]!.host) ?? 0) < request.hostLimit);
      while (claimed.length < request.limit && queues.some(mayTake)) {
        for (const queue of queues) {
          if (!mayTake(queue) || claimed.length >= request.limit) continue;
          const taken = queue.shift()!;
          held.set(taken.host, (held.get(taken.host) ?? 0) + 1);
          hostOf.set(taken.id, taken.host);
          claimed.push(taken);
        }
      }
      return claimed;
    },
    recordAttempts: async (batch: { lease: { id: string } }[]) => {
      written += batch.length;
      free(batch.map((entry) => entry.lease));
      // None lost.
      return [];
    },
    releaseAll: async (leases: { id: string }[]) => free(leases),
    postpone: async () => undefined,
    fail: async () => undefined,
  };
  /** More deliveries fall due to `host` (published while the cycle runs). */
  const addDue = (host: string, count: number) => {
    const deliveries = Array.from({ length: count }, () => delivery(host));
    const queue = queues.find((entry) => entry[0]?.host === host);
    if (queue) queue.push(...deliveries);
    else queues.push(deliveries);
  };
  return { store: store as unknown as DeliveryStore, asked, written: () => written, addDue };
}

/**
 * Answers the hosts in `atOnce` at once; holds every other request until `answer` (oldest first), or ends it
 * as interrupted on shutdown.
 */
function senderInMemory(atOnce: string[]) {
  const held: (() => void)[] = [];
  const sent: Record<string, number> = {};
  const answered: AttemptResult = { ok: true, responseCode: 204, responseBody: null, errorMessage: null };
  const sender = {
    post: (url: string, _headers: Record<string, string>, _body: string, { shutdown }: PostOptions = {}): Promise<AttemptResult> => {
      const host = new URL(url).host;
      sent[host] = (sent[host] ?? 0) + 1;
      if (atOnce.includes(host)) return Promise.resolve(answered);
      return new Promise((resolve) => {
        const interrupted = () => resolve({ ok: false, responseCode: null, responseBody: null, errorMessage: 'shutdown', interrupted: true });
        shutdown?.addEventListener('abort', interrupted, { once: true });
        held.push(() => {
          shutdown?.removeEventListener('abort', interrupted);
          resolve(answered);
        });
      });
    },
    close: async () => undefined,
  };
  /** Answers held requests one at a time, each after what the one before set off has run. */
  const answer = async (count: number) => {
    for (let index = 0; index < count; index += 1) {
      held.shift()?.();
      await settle();
    }
  };
  return { sender: sender as unknown as HttpSender, sent, answer };
}

const breakers = { run: async <T>(_endpoint: string, attempt: () => Promise<T>) => ({ kind: 'ran' as const, result: await attempt() }) } as unknown as EndpointBreakers;

function dispatcherOn(store: DeliveryStore, sender: HttpSender): DeliveryDispatcher {
  const { logger } = captureLogger('info');
  return new DeliveryDispatcher({ store, sender, breakers, logger, settings: { ...SETTINGS, now: () => new Date() } });
}

/** Lets every promise and I/O callback run; the faked timers fire only when the test advances them. */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
}

/** Answers whatever is held and moves the clock on until the cycle has ended. */
async function finish(cycle: { ended: boolean }, answer: (count: number) => Promise<void>): Promise<void> {
  for (let step = 0; step < 10_000 && !cycle.ended; step += 1) {
    await answer(1);
    await vi.advanceTimersByTimeAsync(RECORD_DELAY_MS);
  }
  expect(cycle.ended).toBe(true);
}

function run(dispatcher: DeliveryDispatcher) {
  const cycle = { ended: false, done: Promise.resolve() };
  cycle.done = dispatcher.runCycle().finally(() => (cycle.ended = true));
  return cycle;
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the delivery cycle', () => {
  it('claims again once the outcomes holding its room are written, though the only attempt left in flight hangs', async () => {
    const { store, asked, written } = storeInMemory({ 'dead.example': MAX_HELD / 2, 'live.example': 3 * MAX_HELD });
    const { sender, sent, answer } = senderInMemory(['live.example']);
    const cycle = run(dispatcherOn(store, sender));
    await settle();
    // The first claim filled the room: half to the dead host, whose first attempt hangs, half to the live
    // one, whose attempts have all ended with their outcomes waiting to be written.
    expect(asked).toEqual([MAX_HELD]);
    expect(sent).toEqual({ 'dead.example': 1, 'live.example': MAX_HELD / 2 });
    expect(written()).toBe(0);

    await vi.advanceTimersByTimeAsync(RECORD_DELAY_MS);
    await settle();
    // Written, and the room they held claimed and used before the cycle's wait for an attempt ran out.
    expect(written()).toBe(MAX_HELD / 2);
    expect(RECORD_DELAY_MS).toBeLessThan(SLOW_AFTER_MS);
    expect(asked.length).toBeGreaterThan(1);
    expect(sent['live.example']).toBeGreaterThan(MAX_HELD / 2);

    await finish(cycle, answer);
    await cycle.done;
    expect(sent['live.example']).toBe(3 * MAX_HELD);
  });

  it('claims again once outcomes are written when its last claim found a host held at its cap by them', async () => {
    // Every host capped at its one slot. The live host's attempt ends, the claim that follows finds its
    // lease still held by the unwritten outcome and brings nothing; the write frees it, and with only the
    // hung attempt in flight nothing else would say so before the delivery interval.
    const { store, asked } = storeInMemory({ 'dead.example': 4, 'live.example': 4 }, { capAtHostLimit: true });
    const { sender, sent, answer } = senderInMemory(['live.example']);
    const cycle = run(dispatcherOn(store, sender));
    await settle();
    expect(sent).toEqual({ 'dead.example': 1, 'live.example': 1 });
    expect(asked.length).toBeGreaterThan(1);

    await vi.advanceTimersByTimeAsync(RECORD_DELAY_MS);
    await settle();
    // The write let the next claim bring the live host's second delivery, well before SLOW_AFTER_MS.
    expect(sent['live.example']).toBe(2);
    for (let write = 0; write < 2; write += 1) {
      await vi.advanceTimersByTimeAsync(RECORD_DELAY_MS);
      await settle();
    }
    expect(sent['live.example']).toBe(4);

    await finish(cycle, answer);
    await cycle.done;
  });

  it('claims at once when a cycle is asked for while it waits only on attempts that hang', async () => {
    // As the delivery interval asks: nothing ends and no pause has passed, so only the request makes it look.
    const { store, asked, addDue } = storeInMemory({ 'dead.example': 4 }, { capAtHostLimit: true });
    const { sender, sent, answer } = senderInMemory([]);
    const dispatcher = dispatcherOn(store, sender);
    const cycle = run(dispatcher);
    await settle();
    expect(sent).toEqual({ 'dead.example': 1 });
    const claims = asked.length;
    addDue('live.example', 2);
    await settle();
    expect(asked).toHaveLength(claims);

    const asking = dispatcher.runCycle();
    await settle();
    expect(asked.length).toBeGreaterThan(claims);
    // Its one slot's worth (every host here is held to its slots), started at once.
    expect(sent['live.example']).toBe(1);

    await finish(cycle, answer);
    await Promise.all([cycle.done, asking]);
  });

  it('starts its first attempts while the due deliveries are still being counted, and sets the gauge once they are', async () => {
    const { store, asked } = storeInMemory({ 'live.example': 6 });
    let count: (due: number) => void = () => undefined;
    const counting = vi.spyOn(store, 'countDue').mockReturnValue(new Promise<number>((resolve) => (count = resolve)));
    const { sender, sent, answer } = senderInMemory(['live.example']);
    dueDeliveries.set(-1);
    const cycle = run(dispatcherOn(store, sender));
    await settle();
    expect(counting).toHaveBeenCalledTimes(1);
    expect(asked.length).toBeGreaterThan(0);
    expect(sent['live.example']).toBe(6);
    expect((await dueDeliveries.get()).values[0]?.value).toBe(-1);

    count(6);
    await finish(cycle, answer);
    await cycle.done;
    expect((await dueDeliveries.get()).values[0]?.value).toBe(6);
  });

  it('delivers though the count of due deliveries fails, says so, and leaves the gauge as it was', async () => {
    const { store, written } = storeInMemory({ 'live.example': 3 });
    vi.spyOn(store, 'countDue').mockRejectedValue(new Error('database unavailable'));
    const { sender, sent, answer } = senderInMemory(['live.example']);
    const { logger, lines } = captureLogger('info');
    dueDeliveries.set(-1);
    const cycle = run(new DeliveryDispatcher({ store, sender, breakers, logger, settings: { ...SETTINGS, now: () => new Date() } }));
    await finish(cycle, answer);
    await cycle.done;
    expect(sent['live.example']).toBe(3);
    expect(written()).toBe(3);
    expect(lines().filter((line) => line.msg === 'could not count the due deliveries')).toHaveLength(1);
    expect((await dueDeliveries.get()).values[0]?.value).toBe(-1);
  });
});
