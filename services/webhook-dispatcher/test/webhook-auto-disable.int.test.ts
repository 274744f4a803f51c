import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { disabledReason } from '../src/features/dead-subscribers/failing-webhooks.js';
import { START, startHarness, type Harness, type Json } from './support/webhook-harness.js';
import { startReceiver, type TestReceiver } from './support/test-receiver.js';

/**
 * WEBHOOK_DISABLE_AFTER_DAYS, here 2. A webhook's deliveries have all failed for that long when, counting from
 * the later of its last change and its last successful delivery, its failed attempts reach from the creation
 * of the oldest delivery they belong to, to the newest attempt, across at least that span.
 */
const owner = randomUUID();
const DAYS = 2;
const DAY = 86_400;
let h: Harness;
let target: TestReceiver;
let receiverUp = false;

beforeAll(async () => {
  h = await startHarness({ disableAfterDays: DAYS });
  target = await startReceiver(() => (receiverUp ? { status: 200 } : { status: 503 }));
});
afterAll(async () => {
  await target.close();
  await h.close();
});
beforeEach(async () => {
  receiverUp = false;
  h.clock.current = new Date(START);
  await h.knex('webhooks').update({ deleted_at: h.clock.now() });
});

/** Moves the clock to `seconds` after START. */
function at(seconds: number): void {
  h.clock.current = new Date(START.getTime() + seconds * 1000);
}

async function webhook(): Promise<string> {
  return (await h.call(owner, 'POST', '/webhooks', { url: target.url })).body.data.id as string;
}

/** A change now, attempted now (with any retries that are due). */
async function deliverOne(): Promise<void> {
  await h.publish({});
  await h.module.dispatcher.runCycle();
}

async function shown(id: string): Promise<Json> {
  return (await h.call(owner, 'GET', `/webhooks/${id}`)).body.data;
}

async function disabledNow(): Promise<string[]> {
  return (await h.module.deadSubscribers.runOnce()).disabled;
}

describe('a webhook whose deliveries have all failed for WEBHOOK_DISABLE_AFTER_DAYS', () => {
  it('is disabled, with its reason and time, once its failures span the days, not a second sooner', async () => {
    const hook = await webhook();
    await deliverOne();
    at(DAYS * DAY - 1);
    await deliverOne();
    expect(await disabledNow()).toEqual([]);
    expect(await shown(hook)).toMatchObject({ isActive: true, disabledReason: null, disabledAt: null });

    at(DAYS * DAY);
    await deliverOne();
    expect(await disabledNow()).toEqual([hook]);
    const disabledAt = h.clock.now().toISOString();
    expect(await shown(hook)).toMatchObject({ isActive: false, disabledReason: disabledReason(DAYS), disabledAt, updatedAt: disabledAt });
    expect(disabledReason(DAYS)).toBe('Disabled by the system: every delivery attempt failed for 2 days. Set isActive to true to enable it again.');
    expect(h.lines().filter((line) => line.event === 'audit.timetable.webhook.disabled' && line.webhookId === hook)).toEqual([
      expect.objectContaining({
        developerId: owner, urlHost: target.host, isActive: false, disabledReason: disabledReason(DAYS), msg: 'audit.timetable.webhook.disabled',
      }),
    ]);

    // Inactive: new changes are no longer matched to it.
    const before = await h.knex('deliveries').where({ webhook_id: hook }).count({ count: '*' }).first();
    await h.publish({});
    expect(await h.knex('deliveries').where({ webhook_id: hook }).count({ count: '*' }).first()).toEqual(before);
  });

  it('counts from the first failure after its last successful delivery', async () => {
    const hook = await webhook();
    await deliverOne();
    // Its four attempts (the spec's cap) all fail: a delivery that failed for good before the success.
    for (const seconds of [60, 360, 1260]) {
      at(seconds);
      await h.module.dispatcher.runCycle();
    }
    expect(await h.knex('deliveries').where({ webhook_id: hook })).toMatchObject([{ status: 'failed', attempts: 4 }]);
    at(DAY);
    receiverUp = true;
    await deliverOne();
    receiverUp = false;
    at(DAY + 3600);
    await deliverOne();
    // Two days after the first failure, but a delivery succeeded in between.
    at(DAYS * DAY);
    await deliverOne();
    at(DAY + 3600 + DAYS * DAY - 1);
    await deliverOne();
    expect(await disabledNow()).toEqual([]);

    at(DAY + 3600 + DAYS * DAY);
    await deliverOne();
    expect(await disabledNow()).toEqual([hook]);
  });

  it('stays active when it failed once and then had nothing to deliver', async () => {
    const hook = await webhook();
    await deliverOne();
    at(10 * DAY);
    expect(await disabledNow()).toEqual([]);
    expect(await shown(hook)).toMatchObject({ isActive: true, disabledReason: null, disabledAt: null });
  });
});

describe('PATCH isActive true on a webhook the system disabled', () => {
  it('enables it again and clears the reason and time; failures count anew from then', async () => {
    const hook = await webhook();
    await deliverOne();
    at(DAYS * DAY);
    await deliverOne();
    expect(await disabledNow()).toEqual([hook]);

    // Any other change keeps it disabled, with its reason.
    const edited = await h.call(owner, 'PATCH', `/webhooks/${hook}`, { eventTypes: ['created', 'updated'] });
    expect(edited.body.data).toMatchObject({ isActive: false, disabledReason: disabledReason(DAYS) });

    at(DAYS * DAY + 60);
    const enabled = await h.call(owner, 'PATCH', `/webhooks/${hook}`, { isActive: true });
    expect(enabled.status).toBe(200);
    expect(enabled.body.data).toMatchObject({ isActive: true, disabledReason: null, disabledAt: null });
    expect(await shown(hook)).toMatchObject({ isActive: true, disabledReason: null, disabledAt: null });

    at(DAYS * DAY + 120);
    await deliverOne();
    expect(await disabledNow()).toEqual([]);
    expect((await shown(hook)).isActive).toBe(true);
  });
});
