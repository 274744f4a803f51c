import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { serveModule } from '@timetable/service-kit';
import { captureLogger } from '@timetable/testing';
import { testResources } from './support/test-resources.js';
import type { Harness, Json } from './support/webhook-harness.js';

/** Redeliver: 10 per webhook a minute (a redelivered test is a test); recover: one per webhook a minute. */
const resources = testResources();
afterAll(() => resources.closeAll());

interface Setup {
  h: Harness;
  owner: string;
  hook: string;
  /** A delivery of a matched change. */
  deliveryId: string;
}

async function setup(): Promise<Setup> {
  const h = await resources.harness();
  const owner = randomUUID();
  const hook = (await h.call(owner, 'POST', '/webhooks', { url: 'https://hooks.example.edu/limits' })).body.data.id as string;
  await h.publish({});
  const [delivery] = await h.knex('deliveries').where({ webhook_id: hook, origin: 'match' });
  return { h, owner, hook, deliveryId: delivery.id as string };
}

const redeliverPath = (hook: string, deliveryId: string) => `/webhooks/${hook}/deliveries/${deliveryId}/redeliver`;

async function rows(h: Harness, hook: string, origin: string): Promise<number> {
  const row = await h.knex('deliveries').where({ webhook_id: hook, origin }).count({ n: '*' }).first();
  return Number(row?.n);
}

/** The envelope, the Retry-After header and the seconds in it. */
async function expectLimited(h: Harness, owner: string, path: string, body?: unknown): Promise<number> {
  const response = await fetch(`${h.api.url}/v1/timetable${path}`, {
    method: 'POST',
    headers: { ...h.identity.headersFor(owner), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(response.status).toBe(429);
  const retryAfter = Number(response.headers.get('retry-after'));
  expect((await response.json()) as Json).toEqual({
    error: { code: 'RATE_LIMITED', message: 'Rate limit exceeded, retry later', details: { retryAfterSeconds: retryAfter } },
  });
  return retryAfter;
}

describe('redeliver: at most 10 per webhook in any minute', () => {
  it('answers the 11th with 429 and Retry-After, queues nothing for it, and accepts again once the window moved', async () => {
    const { h, owner, hook, deliveryId } = await setup();
    for (let index = 0; index < 10; index += 1) {
      expect((await h.call(owner, 'POST', redeliverPath(hook, deliveryId))).status).toBe(202);
      h.clock.advance(1);
    }
    expect(await expectLimited(h, owner, redeliverPath(hook, deliveryId))).toBe(50);
    expect(await rows(h, hook, 'redeliver')).toBe(10);
    h.clock.advance(50);
    expect((await h.call(owner, 'POST', redeliverPath(hook, deliveryId))).status).toBe(202);
    expect(await expectLimited(h, owner, redeliverPath(hook, deliveryId))).toBe(1);
  });

  it('counts per webhook: another webhook of the same owner keeps its own budget', async () => {
    const { h, owner, hook, deliveryId } = await setup();
    for (let index = 0; index < 10; index += 1) await h.call(owner, 'POST', redeliverPath(hook, deliveryId));
    await expectLimited(h, owner, redeliverPath(hook, deliveryId));
    const other = (await h.call(owner, 'POST', '/webhooks', { url: 'https://hooks.example.edu/other' })).body.data.id as string;
    await h.publish({});
    const [otherDelivery] = await h.knex('deliveries').where({ webhook_id: other, origin: 'match' });
    expect((await h.call(owner, 'POST', redeliverPath(other, otherDelivery.id))).status).toBe(202);
  });
});

describe('a redelivered test delivery is a test', () => {
  it('is refused once the test limit is spent, and spends it, whatever the redeliver budget', async () => {
    const { h, owner, hook, deliveryId } = await setup();
    for (let index = 0; index < 9; index += 1) expect((await h.call(owner, 'POST', `/webhooks/${hook}/test`)).status).toBe(204);
    const [test] = await h.knex('deliveries').where({ webhook_id: hook, origin: 'test' });
    const redelivered = await h.call(owner, 'POST', redeliverPath(hook, test.id));
    expect(redelivered.status).toBe(202);
    expect(redelivered.body.data).toMatchObject({ eventType: 'test.created', status: 'pending' });
    await expectLimited(h, owner, `/webhooks/${hook}/test`);
    await expectLimited(h, owner, redeliverPath(hook, test.id));
    expect(await rows(h, hook, 'test')).toBe(10);
    // Redeliveries of changes have their own budget, untouched by the tests.
    expect((await h.call(owner, 'POST', redeliverPath(hook, deliveryId))).status).toBe(202);
  });
});

describe('recover: one per webhook a minute', () => {
  it('answers a second recover within the minute with 429 and Retry-After, even when the first queued nothing', async () => {
    const { h, owner, hook } = await setup();
    const since = () => new Date(h.clock.now().getTime() - 3_600_000).toISOString();
    expect(await h.call(owner, 'POST', `/webhooks/${hook}/recover`, { since: since() })).toMatchObject({ status: 202, body: { data: { enqueued: 0 } } });
    h.clock.advance(20);
    expect(await expectLimited(h, owner, `/webhooks/${hook}/recover`, { since: since() })).toBe(40);
    h.clock.advance(40);
    expect((await h.call(owner, 'POST', `/webhooks/${hook}/recover`, { since: since() })).status).toBe(202);
  });

  it('spends nothing on a refused request: a 400 or 409 leaves the minute free', async () => {
    const { h, owner, hook } = await setup();
    expect((await h.call(owner, 'POST', `/webhooks/${hook}/recover`, { since: 'yesterday' })).status).toBe(400);
    await h.call(owner, 'PATCH', `/webhooks/${hook}`, { isActive: false });
    expect((await h.call(owner, 'POST', `/webhooks/${hook}/recover`, { since: h.clock.now().toISOString() })).status).toBe(409);
    await h.call(owner, 'PATCH', `/webhooks/${hook}`, { isActive: true });
    expect((await h.call(owner, 'POST', `/webhooks/${hook}/recover`, { since: h.clock.now().toISOString() })).status).toBe(202);
  });
});

describe('the limits across dispatcher replicas', () => {
  it('hold when requests race on two replicas of one database', async () => {
    const { h, owner, hook, deliveryId } = await setup();
    const replica = await serveModule(await h.replica(), { name: 'replica', logger: captureLogger('fatal').logger, startModule: false });
    try {
      const post = (url: string, path: string, body?: unknown) =>
        fetch(`${url}/v1/timetable${path}`, {
          method: 'POST',
          headers: { ...h.identity.headersFor(owner), 'content-type': 'application/json' },
          body: JSON.stringify(body ?? {}),
        }).then((response) => response.status);
      const urls = [h.api.url, replica.url];
      const redeliveries = await Promise.all(Array.from({ length: 16 }, (_, index) => post(urls[index % 2]!, redeliverPath(hook, deliveryId))));
      expect(redeliveries.filter((status) => status === 202)).toHaveLength(10);
      expect(redeliveries.filter((status) => status === 429)).toHaveLength(6);
      const since = h.clock.now().toISOString();
      const recovers = await Promise.all(Array.from({ length: 6 }, (_, index) => post(urls[index % 2]!, `/webhooks/${hook}/recover`, { since })));
      expect(recovers.sort()).toEqual([202, 429, 429, 429, 429, 429]);
    } finally {
      await replica.close();
    }
  });
});
