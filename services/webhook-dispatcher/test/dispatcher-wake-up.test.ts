import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { captureLogger } from '@timetable/testing';
import type { HostBreakers } from '../src/features/breaker/host-breakers.js';
import type { AttemptResult } from '../src/features/delivery/attempt-exchange.js';
import { DeliveryDispatcher } from '../src/features/delivery/delivery-dispatcher.js';
import type { ClaimedDelivery, ClaimRequest, DeliveryStore } from '../src/features/delivery/delivery-store.js';
import { SLOW_AFTER_MS } from '../src/features/delivery/host-queues.js';
import type { HttpSender } from '../src/features/delivery/http-sender.js';
import { RECORD_DELAY_MS } from '../src/features/delivery/outcome-recorder.js';

/**
 * When the cycle looks again. It waits for an attempt to end, but the leases that outcomes hold until they
 * are written also take room: with every live attempt ended and its outcome not yet written, and only hung
 * attempts left in flight, the room comes back with the write, not with an attempt's end. The dispatcher
 * here runs on a store and a sender in memory, and the clock of its timers is the test's: what it does
 * within RECORD_DELAY_MS cannot be the timeout of its wait for an attempt, which is SLOW_AFTER_MS.
 */
const DEAD_HOST = 'dead.example:443';
const LIVE_HOST = 'live.example:443';
/** Two attempts at once, one per host: the dispatcher holds at most 32 leases (CLAIM_AHEAD_FACTOR). */
const SETTINGS = { intervalSeconds: 3600, retryDelaysSeconds: [60], timeoutMs: 30_000, concurrency: 2, hostConcurrency: 1, drainTimeoutMs: 100 };
const MAX_HELD = 32;

function delivery(host: string): ClaimedDelivery {
  return {
    id: randomUUID(), claimToken: randomUUID(), leaseUntil: new Date(Date.now() + 3_600_000), messageId: randomUUID(), eventType: 'course.updated',
    attempts: 0, url: `https://${host}/hook`, host, developerId: host, secret: null, webhookDeleted: false, data: null,
  };
}

/** Due deliveries to a host that never answers and to one that answers at once, claimed as the store would: the first claim fills the room with both. */
function storeInMemory(live: number, dead: number) {
  const due = { live: Array.from({ length: live }, () => delivery(LIVE_HOST)), dead: Array.from({ length: dead }, () => delivery(DEAD_HOST)) };
  const claims: number[] = [];
  let written = 0;
  const store = {
    countDue: async () => due.live.length + due.dead.length,
    claimDue: async (request: ClaimRequest) => {
      const deadShare = due.dead.splice(0, Math.floor(request.limit / 2));
      const claimed = [...deadShare, ...due.live.splice(0, request.limit - deadShare.length)];
      claims.push(claimed.length);
      return claimed;
    },
    recordAttempts: async (batch: { lease: { id: string } }[]) => {
      written += batch.length;
      return new Set(batch.map((entry) => entry.lease.id));
    },
    releaseAll: async () => undefined,
    postpone: async () => undefined,
    fail: async () => undefined,
  };
  return { store: store as unknown as DeliveryStore, claims, written: () => written };
}

/** Answers the live host at once; holds the dead host's requests until `answerDead`, or ends them as interrupted on shutdown. */
function senderInMemory() {
  const held: (() => void)[] = [];
  const sent = { live: 0, dead: 0 };
  const answered: AttemptResult = { ok: true, responseCode: 204, responseBody: null, errorMessage: null };
  const sender = {
    post: (url: string, _headers: Record<string, string>, _body: string, shutdown?: AbortSignal): Promise<AttemptResult> => {
      if (url.includes(LIVE_HOST)) {
        sent.live += 1;
        return Promise.resolve(answered);
      }
      sent.dead += 1;
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
  return { sender: sender as unknown as HttpSender, sent, answerDead: () => held.splice(0).forEach((answer) => answer()) };
}

const breakers = { run: async <T>(_host: string, attempt: () => Promise<T>) => ({ kind: 'ran' as const, result: await attempt() }) } as unknown as HostBreakers;

/** Lets every promise and I/O callback run; the faked timers fire only when the test advances them. */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the delivery cycle wakes when outcomes are written', () => {
  it('claims again once the outcomes holding its room are written, though the only attempt left in flight hangs', async () => {
    const { store, claims, written } = storeInMemory(3 * MAX_HELD, MAX_HELD);
    const { sender, sent, answerDead } = senderInMemory();
    const { logger } = captureLogger('info');
    const dispatcher = new DeliveryDispatcher({ store, sender, breakers, logger, settings: { ...SETTINGS, now: () => new Date() } });

    let ended = false;
    const cycle = dispatcher.runCycle().finally(() => (ended = true));
    await settle();
    // The first claim filled the room: half to the dead host, whose first attempt hangs, half to the live
    // one, whose attempts have all ended with their outcomes waiting to be written.
    expect(claims).toEqual([MAX_HELD]);
    expect(sent).toEqual({ live: MAX_HELD / 2, dead: 1 });
    expect(written()).toBe(0);

    await vi.advanceTimersByTimeAsync(RECORD_DELAY_MS);
    await settle();
    // Written, and the room they held claimed and used before the cycle's wait for an attempt ran out.
    expect(written()).toBe(MAX_HELD / 2);
    expect(RECORD_DELAY_MS).toBeLessThan(SLOW_AFTER_MS);
    expect(claims.length).toBeGreaterThan(1);
    expect(sent.live).toBeGreaterThan(MAX_HELD / 2);

    // Let it finish: the dead host answers from now on.
    answerDead();
    for (let step = 0; step < 1000 && !ended; step += 1) {
      answerDead();
      await vi.advanceTimersByTimeAsync(RECORD_DELAY_MS);
    }
    await cycle;
    expect(sent.live).toBe(3 * MAX_HELD);
  });
});
