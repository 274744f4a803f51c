import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/webhook-harness.js';
import { startReceiver, type ReceivedRequest, type TestReceiver } from './support/test-receiver.js';
import { waitFor } from './support/end-to-end-system.js';

/**
 * SIGTERM: the dispatcher stops claiming, lets what is in flight finish within the drain timeout, and
 * releases the rest without consuming an attempt, so another dispatcher sends it and nothing is sent
 * twice under two different webhook-ids.
 */
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

const RECEIVERS = 5;
const CHANGES = 100;

async function backlogOf500(overrides: Parameters<typeof startHarness>[0], delayMs: number): Promise<{ h: Harness; receivers: TestReceiver[] }> {
  const h = await startHarness({ concurrency: 32, ...overrides });
  cleanup.push(() => h.close());
  const receivers: TestReceiver[] = [];
  for (let index = 0; index < RECEIVERS; index += 1) {
    const receiver = await startReceiver(() => ({ status: 200, delayMs }));
    cleanup.push(() => receiver.close());
    receivers.push(receiver);
    const created = await h.call(randomUUID(), 'POST', '/webhooks', { url: receiver.url });
    expect(created.status).toBe(201);
  }
  await h.publish(...Array.from({ length: CHANGES }, () => ({})));
  const [{ n }] = (await h.knex('deliveries').where({ status: 'pending' }).count({ n: '*' })) as [{ n: string }];
  expect(Number(n)).toBe(RECEIVERS * CHANGES);
  return { h, receivers };
}

/** Every (subscriber, change) arrived, each always under one webhook-id. */
function expectEachDeliveryOnceById(receivers: TestReceiver[]): void {
  for (const receiver of receivers) {
    const idsByChange = new Map<string, Set<string>>();
    for (const request of receiver.received as ReceivedRequest[]) {
      const ids = idsByChange.get(request.body.id as string) ?? new Set<string>();
      ids.add(String(request.headers['webhook-id']));
      idsByChange.set(request.body.id as string, ids);
    }
    expect(idsByChange.size).toBe(CHANGES);
    expect([...idsByChange.values()].every((ids) => ids.size === 1)).toBe(true);
  }
}

describe('stop() in the middle of a cycle', () => {
  it('finishes the attempts in flight, claims nothing more, and a second dispatcher delivers the rest', async () => {
    const { h, receivers } = await backlogOf500({ drainTimeoutMs: 30_000 }, 50);
    const cycle = h.module.dispatcher.runCycle();
    await waitFor('the first deliveries', () => receivers.reduce((sum, receiver) => sum + receiver.received.length, 0) >= 60);
    await h.module.dispatcher.stop();
    await cycle;

    const sentBeforeStop = receivers.reduce((sum, receiver) => sum + receiver.received.length, 0);
    const rows: { status: string; attempts: number; claim_token: string | null }[] = await h.knex('deliveries').select('status', 'attempts', 'claim_token');
    expect(rows.filter((row) => row.status === 'delivered')).toHaveLength(sentBeforeStop);
    expect(rows.filter((row) => row.status === 'pending').every((row) => row.attempts === 0 && row.claim_token === null)).toBe(true);
    expect(sentBeforeStop).toBeLessThan(RECEIVERS * CHANGES);

    const successor = await h.replica();
    await successor.dispatcher.runCycle();
    expectEachDeliveryOnceById(receivers);
    const after: { status: string; attempts: number }[] = await h.knex('deliveries').select('status', 'attempts');
    expect(after.every((row) => row.status === 'delivered' && row.attempts === 1)).toBe(true);
  });

  it('interrupts attempts still in flight after the drain timeout and releases them without consuming an attempt', async () => {
    const { h, receivers } = await backlogOf500({ drainTimeoutMs: 200 }, 2000);
    const cycle = h.module.dispatcher.runCycle();
    await waitFor('attempts to reach every receiver', () => receivers.every((receiver) => receiver.received.length === 4));
    await h.module.dispatcher.stop();
    await cycle;

    const rows: { status: string; attempts: number; claim_token: string | null }[] = await h.knex('deliveries').select('status', 'attempts', 'claim_token');
    expect(rows.every((row) => row.status === 'pending' && row.attempts === 0 && row.claim_token === null)).toBe(true);

    for (const receiver of receivers) receiver.reply = () => ({ status: 200 });
    const successor = await h.replica();
    await successor.dispatcher.runCycle();
    expectEachDeliveryOnceById(receivers);
    const after: { status: string; attempts: number }[] = await h.knex('deliveries').select('status', 'attempts');
    expect(after.every((row) => row.status === 'delivered' && row.attempts === 1)).toBe(true);
  });
});
