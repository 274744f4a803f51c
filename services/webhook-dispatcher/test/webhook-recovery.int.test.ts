import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/webhook-harness.js';
import { startReceiver, type TestReceiver } from './support/test-receiver.js';

/** redeliver one delivery, recover everything that failed since an instant: owner only, active webhooks only. */
const owner = randomUUID();
const stranger = randomUUID();
const DAY = 86_400;
let h: Harness;
let target: TestReceiver;
let receiverUp = false;

beforeAll(async () => {
  h = await startHarness();
  target = await startReceiver(() => (receiverUp ? { status: 200 } : { status: 503 }));
});
afterAll(async () => {
  await target.close();
  await h.close();
});
beforeEach(async () => {
  receiverUp = false;
  await h.knex('webhooks').update({ deleted_at: h.clock.now() });
});

async function webhook(): Promise<string> {
  return (await h.call(owner, 'POST', '/webhooks', { url: target.url })).body.data.id as string;
}

/** Four failed attempts (the spec's cap) for every pending delivery. */
async function failEverything(): Promise<void> {
  for (const wait of [0, 60, 300, 900]) {
    h.clock.advance(wait);
    await h.module.dispatcher.runCycle();
  }
}

describe('POST /webhooks/:id/deliveries/:deliveryId/redeliver', () => {
  it('answers 202 with a new pending delivery of the same change, which arrives under its own webhook-id', async () => {
    const hook = await webhook();
    const [change] = await h.publish({});
    await failEverything();
    const [failed] = await h.knex('deliveries').where({ webhook_id: hook });
    expect(failed).toMatchObject({ status: 'failed', attempts: 4 });

    receiverUp = true;
    const response = await h.call(owner, 'POST', `/webhooks/${hook}/deliveries/${failed.id}/redeliver`);
    expect(response.status).toBe(202);
    expect(response.body.data).toMatchObject({ webhookId: hook, eventType: 'course.updated', status: 'pending', attempts: 0, payload: null });
    expect(response.body.data.id).not.toBe(failed.id);
    await h.module.dispatcher.runCycle();
    const last = target.received.at(-1)!;
    expect(last.body.id).toBe(change!.id);
    expect(last.headers['webhook-id']).toBe(response.body.data.id);
    const listed = await h.call(owner, 'GET', `/webhooks/${hook}/deliveries?status=delivered`);
    expect(listed.body.data.map((delivery: { id: string }) => delivery.id)).toEqual([response.body.data.id]);
  });

  it('answers 403 for another developer, 404 for an unknown webhook or delivery, 409 for an inactive webhook', async () => {
    const hook = await webhook();
    const other = await webhook();
    await h.call(owner, 'POST', `/webhooks/${other}/test`);
    const [foreign] = await h.knex('deliveries').where({ webhook_id: other });
    await h.call(owner, 'POST', `/webhooks/${hook}/test`);
    const [own] = await h.knex('deliveries').where({ webhook_id: hook });
    const path = (webhookId: string, deliveryId: string) => `/webhooks/${webhookId}/deliveries/${deliveryId}/redeliver`;

    expect((await h.call(stranger, 'POST', path(hook, own.id))).body.error).toMatchObject({ code: 'FORBIDDEN', message: 'You do not own this webhook' });
    expect((await h.call(owner, 'POST', path(randomUUID(), own.id))).status).toBe(404);
    expect((await h.call(owner, 'POST', path(hook, randomUUID()))).body.error.code).toBe('NOT_FOUND');
    expect((await h.call(owner, 'POST', path(hook, 'not-a-uuid'))).status).toBe(404);
    expect((await h.call(owner, 'POST', path(hook, foreign.id))).status).toBe(404);
    await h.call(owner, 'PATCH', `/webhooks/${hook}`, { isActive: false });
    const inactive = await h.call(owner, 'POST', path(hook, own.id));
    expect(inactive.status).toBe(409);
    expect(inactive.body.error.code).toBe('CONFLICT');
  });
});

describe('POST /webhooks/:id/recover', () => {
  it('queues one new delivery per change since the instant whose delivery failed, and they arrive', async () => {
    const hook = await webhook();
    const [early] = await h.publish({ createdAt: new Date(h.clock.now().getTime() - 3 * DAY * 1000).toISOString() });
    const failing = await h.publish({}, {});
    await failEverything();
    receiverUp = true;
    const [delivered] = await h.publish({});
    await h.module.dispatcher.runCycle();
    const since = new Date(h.clock.now().getTime() - DAY * 1000).toISOString();

    const response = await h.call(owner, 'POST', `/webhooks/${hook}/recover`, { since });
    expect(response).toMatchObject({ status: 202, body: { data: { enqueued: 2 } } });
    const before = target.received.length;
    await h.module.dispatcher.runCycle();
    const arrived = target.received.slice(before).map((request) => request.body.id as string);
    expect(arrived.sort()).toEqual(failing.map((change) => change.id).sort());
    expect(arrived).not.toContain(early!.id);
    expect(arrived).not.toContain(delivered!.id);
    // Those changes are delivered now: recovering again (a minute later, the recover limit) queues nothing.
    h.clock.advance(60);
    expect((await h.call(owner, 'POST', `/webhooks/${hook}/recover`, { since })).body.data.enqueued).toBe(0);
  });

  it.each([
    ['more than 30 days ago', () => new Date(h.clock.now().getTime() - 31 * DAY * 1000).toISOString()],
    ['unparseable', () => 'yesterday'],
    ['missing', () => undefined],
  ])('answers 400 VALIDATION_ERROR when since is %s', async (_case, since) => {
    const hook = await webhook();
    const response = await h.call(owner, 'POST', `/webhooks/${hook}/recover`, since() === undefined ? {} : { since: since() });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('accepts an instant exactly 30 days ago', async () => {
    const hook = await webhook();
    const since = new Date(h.clock.now().getTime() - 30 * DAY * 1000).toISOString();
    expect((await h.call(owner, 'POST', `/webhooks/${hook}/recover`, { since })).status).toBe(202);
  });

  it('answers 403 for another developer, 404 for an unknown webhook, 409 for an inactive webhook', async () => {
    const hook = await webhook();
    const since = h.clock.now().toISOString();
    expect((await h.call(stranger, 'POST', `/webhooks/${hook}/recover`, { since })).status).toBe(403);
    expect((await h.call(owner, 'POST', `/webhooks/${randomUUID()}/recover`, { since })).status).toBe(404);
    await h.call(owner, 'PATCH', `/webhooks/${hook}`, { isActive: false });
    expect((await h.call(owner, 'POST', `/webhooks/${hook}/recover`, { since })).status).toBe(409);
  });
});
