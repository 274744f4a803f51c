import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../src/index.js';
import { startHarness, type Harness, type Json } from './support/webhook-harness.js';
import { startReceiver, type TestReceiver } from './support/test-receiver.js';

let h: Harness;
const owner = randomUUID();
const receivers: TestReceiver[] = [];

beforeAll(async () => {
  h = await startHarness({ timeoutMs: 300 });
});
// Every webhook here is global: retire each test's webhooks so later changes do not reach them.
afterEach(async () => {
  await h.knex('deliveries').where({ status: 'pending' }).update({ status: 'failed' });
  await h.knex('webhooks').update({ deleted_at: h.clock.now() });
});
afterAll(async () => {
  for (const receiver of receivers) await receiver.close();
  await h.close();
});

async function receiver(reply?: TestReceiver['reply']): Promise<TestReceiver> {
  const started = await startReceiver(reply);
  receivers.push(started);
  return started;
}

async function webhook(url: string, body: Record<string, unknown> = {}): Promise<string> {
  const response = await h.call(owner, 'POST', '/webhooks', { url, ...body });
  expect(response.status).toBe(201);
  return response.body.data.id as string;
}

async function deliveryOf(webhookId: string): Promise<Json> {
  const response = await h.call(owner, 'GET', `/webhooks/${webhookId}/deliveries`);
  expect(response.body.data).toHaveLength(1);
  return response.body.data[0];
}

const cycle = () => h.module.dispatcher.runCycle();

describe('request format and signature', () => {
  it('POSTs the spec body with a signature verifiable over the raw body with the secret', async () => {
    const secret = 'a-webhook-secret-of-some-length';
    const target = await receiver();
    const hook = await webhook(target.url, { secret });
    const [change] = await h.publish({ entityType: 'room', action: 'updated', roomId: randomUUID() });
    h.clock.advance(30);
    await cycle();

    expect(target.received).toHaveLength(1);
    const request = target.received[0]!;
    const sentAt = h.clock.now();
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-webhook-timestamp']).toBe(String(Math.floor(sentAt.getTime() / 1000)));
    expect(request.body).toEqual({
      id: change!.id,
      timestamp: sentAt.toISOString(),
      event: 'room.updated',
      data: { entityType: 'room', entityId: change!.entityId, action: 'updated', changedFields: ['credits'], previous: change!.previousData, current: change!.newData },
    });
    const signature = String(request.headers['x-webhook-signature']);
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature(request.rawBody, { timestamp: String(request.headers['x-webhook-timestamp']), signature }, secret, sentAt)).toBe(true);
    expect(verifyWebhookSignature(request.rawBody, { timestamp: String(request.headers['x-webhook-timestamp']), signature }, 'another-secret-entirely', sentAt)).toBe(false);

    expect(await deliveryOf(hook)).toMatchObject({
      eventType: 'room.updated', status: 'delivered', attempts: 1, responseCode: 200, responseBody: 'ok', errorMessage: null,
      lastAttemptAt: sentAt.toISOString(), deliveredAt: sentAt.toISOString(), nextRetryAt: null, payload: request.body,
    });
  });

  it('sends no signature header when the webhook has no secret', async () => {
    const target = await receiver();
    await webhook(target.url);
    await h.publish({});
    await cycle();
    expect(target.received).toHaveLength(1);
    expect(target.received[0]!.headers['x-webhook-signature']).toBeUndefined();
    expect(target.received[0]!.headers['x-webhook-timestamp']).toBeDefined();
  });

  it('sends the synthetic test body, ignoring scope', async () => {
    const target = await receiver();
    const hook = await webhook(target.url, { filterScope: 'course', filterCourseId: randomUUID() });
    await h.call(owner, 'POST', `/webhooks/${hook}/test`);
    await cycle();
    expect(target.received[0]!.body).toEqual({
      id: `test-${h.clock.now().getTime()}`,
      timestamp: h.clock.now().toISOString(),
      event: 'test.created',
      data: { entityType: 'test', entityId: 'test-entity', action: 'created', changedFields: [], previous: null, current: { message: expect.any(String) } },
    });
    expect(await deliveryOf(hook)).toMatchObject({ eventType: 'test.created', status: 'delivered' });
  });
});

describe('retries', () => {
  it('retries after 1, 5 and 15 minutes and is delivered on the 4th attempt', async () => {
    const target = await receiver((_request, index) => (index < 3 ? { status: 500, body: 'boom' } : { status: 204 }));
    const hook = await webhook(target.url);
    await h.publish({});
    const t0 = h.clock.now().getTime();
    const at = (seconds: number) => new Date(t0 + seconds * 1000).toISOString();

    await cycle();
    expect(await deliveryOf(hook)).toMatchObject({ status: 'pending', attempts: 1, responseCode: 500, responseBody: 'boom', nextRetryAt: at(60) });
    for (const [wait, attempts, nextAt] of [[59, 1, 60], [1, 2, 360], [299, 2, 360], [1, 3, 1260], [900, 4, null]] as const) {
      h.clock.advance(wait);
      await cycle();
      expect(await deliveryOf(hook)).toMatchObject({ attempts, nextRetryAt: nextAt === null ? null : at(nextAt) });
    }
    const delivered = await deliveryOf(hook);
    expect(delivered).toMatchObject({ status: 'delivered', responseCode: 204, deliveredAt: at(1260), errorMessage: null });
    expect(target.received).toHaveLength(4);
    expect(new Set(target.received.map((request) => request.body.id)).size).toBe(1);
  });

  it('fails after 4 attempts that time out, with errorMessage set and responseCode null', async () => {
    const target = await receiver(() => 'hang');
    const hook = await webhook(target.url);
    await h.publish({});
    for (const wait of [0, 60, 300, 900]) {
      h.clock.advance(wait);
      await cycle();
    }
    expect(target.received).toHaveLength(4);
    expect(await deliveryOf(hook)).toMatchObject({ status: 'failed', attempts: 4, responseCode: null, nextRetryAt: null, errorMessage: 'Timed out after 300 ms' });
    h.clock.advance(3600);
    await cycle();
    expect(target.received).toHaveLength(4);
  });

  it('records a network error without a response code', async () => {
    const target = await receiver();
    await target.close();
    const hook = await webhook(target.url);
    await h.publish({});
    await cycle();
    const delivery = await deliveryOf(hook);
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1, responseCode: null });
    expect(delivery.errorMessage).toMatch(/ECONNREFUSED/);
  });
});

describe('responses', () => {
  it('stores response bodies truncated to 1000 characters', async () => {
    const target = await receiver(() => ({ status: 200, body: 'é'.repeat(5000) }));
    const hook = await webhook(target.url);
    await h.publish({});
    await cycle();
    expect((await deliveryOf(hook)).responseBody).toBe('é'.repeat(1000));
  });

  // PostgreSQL refuses both in text: stored as they were, they failed the whole batch of outcomes, and every
  // delivery in it was sent again, for ever.
  it('stores an answer with a NUL character, or cut inside a surrogate pair, without failing its batch', async () => {
    const nul = await receiver(() => ({ status: 500, body: 'a\u0000b' }));
    const cutEmoji = await receiver(() => ({ status: 200, body: `${'a'.repeat(999)}😀 and more` }));
    const plain = await receiver(() => ({ status: 200, body: 'ok' }));
    const hooks = [await webhook(nul.url), await webhook(cutEmoji.url), await webhook(plain.url)];
    await h.publish({});
    await cycle();
    const [first, second, third] = await Promise.all(hooks.map((hook) => deliveryOf(hook)));
    expect(first).toMatchObject({ status: 'pending', attempts: 1, responseCode: 500, responseBody: 'ab' });
    expect(second).toMatchObject({ status: 'delivered', attempts: 1, responseBody: `${'a'.repeat(999)}\uFFFD` });
    expect(third).toMatchObject({ status: 'delivered', attempts: 1, responseBody: 'ok' });
    expect(h.lines().filter((line) => line.msg === 'delivery attempts not recorded; retried when their leases expire')).toEqual([]);
  });

  it('does not follow redirects', async () => {
    const elsewhere = await receiver();
    const target = await receiver(() => ({ status: 302, headers: { location: elsewhere.url } }));
    const hook = await webhook(target.url);
    await h.publish({});
    await cycle();
    expect(elsewhere.received).toHaveLength(0);
    expect(await deliveryOf(hook)).toMatchObject({ status: 'pending', attempts: 1, responseCode: 302 });
  });
});

describe('webhook lifecycle during delivery', () => {
  it("keeps retrying an inactive webhook's pending delivery", async () => {
    const target = await receiver((_request, index) => (index === 0 ? { status: 503 } : { status: 200 }));
    const hook = await webhook(target.url);
    await h.publish({});
    await cycle();
    await h.call(owner, 'PATCH', `/webhooks/${hook}`, { isActive: false });
    await h.publish({});
    h.clock.advance(60);
    await cycle();
    expect(target.received).toHaveLength(2);
    expect(await deliveryOf(hook)).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it("fails a deleted webhook's pending delivery and never sends it", async () => {
    const target = await receiver(() => ({ status: 500 }));
    const hook = await webhook(target.url);
    await h.publish({});
    await cycle();
    await h.call(owner, 'DELETE', `/webhooks/${hook}`);
    h.clock.advance(60);
    await cycle();
    expect(target.received).toHaveLength(1);
    const [row] = await h.knex('deliveries').where({ webhook_id: hook });
    expect(row).toMatchObject({ status: 'failed', attempts: 1, error_message: 'Webhook deleted', next_retry_at: null });
  });
});
