import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { metricsRegistry } from '@timetable/observability';
import { DeliveryStore } from '../src/features/delivery/delivery-store.js';
import { SecretCipher } from '../src/features/secrets/secret-cipher.js';
import { testResources } from './support/test-resources.js';
import type { Harness } from './support/webhook-harness.js';

const owner = randomUUID();
const resources = testResources();
afterEach(() => resources.closeAll());
afterAll(() => resources.closeAll());
const { harness, receiver } = resources;

async function webhook(h: Harness, url: string, developer = owner): Promise<string> {
  const response = await h.call(developer, 'POST', '/webhooks', { url });
  return response.body.data.id as string;
}

async function statuses(h: Harness): Promise<{ status: string; attempts: number }[]> {
  return h.knex('deliveries').select('status', 'attempts');
}

describe('crash in the middle of a cycle', () => {
  it('loses no delivery and sends no attempt twice', async () => {
    const h = await harness();
    const target = await receiver();
    await webhook(h, target.url);
    await h.publish({}, {}, {}, {}, {});
    // A dispatcher that claimed the due deliveries and died before sending anything.
    const now = h.clock.now();
    const claimed = await new DeliveryStore({ knex: h.knex, cipher: new SecretCipher(h.secretsKey) }).claimDue({
      now, leaseUntil: new Date(now.getTime() + 120_000), claimToken: randomUUID(), limit: 100, hostLimit: 100,
    });
    expect(claimed).toHaveLength(5);

    await h.module.dispatcher.runCycle();
    expect(target.received).toHaveLength(0);
    expect((await statuses(h)).every((row) => row.status === 'pending' && row.attempts === 0)).toBe(true);

    h.clock.advance(121);
    await h.module.dispatcher.runCycle();
    await h.module.dispatcher.runCycle();
    expect(target.received).toHaveLength(5);
    expect(new Set(target.received.map((request) => request.body.id)).size).toBe(5);
    expect((await statuses(h)).every((row) => row.status === 'delivered' && row.attempts === 1)).toBe(true);
  });
});

describe('several dispatcher replicas on one database', () => {
  it('share the work without sending any change twice', async () => {
    const h = await harness({ concurrency: 8 });
    const replica = await h.replica();
    const target = await receiver(() => ({ status: 200, delayMs: 5 }));
    await webhook(h, target.url);
    const changes = await h.publish(...Array.from({ length: 120 }, () => ({})));

    await Promise.all([h.module.dispatcher.runCycle(), replica.dispatcher.runCycle(), h.module.dispatcher.runCycle()]);

    const ids = target.received.map((request) => request.body.id as string);
    expect(ids).toHaveLength(120);
    expect(new Set(ids)).toEqual(new Set(changes.map((change) => change.id)));
    expect((await statuses(h)).every((row) => row.status === 'delivered' && row.attempts === 1)).toBe(true);
  });
});

describe('circuit breaker per subscriber endpoint (the webhook)', () => {
  it('opens after enough failures and postpones attempts without consuming them, while other hosts proceed', async () => {
    const h = await harness({ breaker: { minRequests: 3, failurePercent: 70, openSeconds: 30 } });
    const dead = await receiver(() => ({ status: 500 }));
    const healthy = await receiver();
    const deadHook = await webhook(h, dead.url);
    await h.publish({}, {}, {}, {});
    await h.module.dispatcher.runCycle();
    expect(dead.received).toHaveLength(4);
    // Counted by state only: no subscriber host name is exported.
    const state = await metricsRegistry.getSingleMetric('webhook_breakers')?.get();
    expect(state?.values.find((value) => value.labels.state === 'open')?.value).toBe(1);
    expect(state?.values.every((value) => Object.keys(value.labels).join() === 'state')).toBe(true);

    await webhook(h, healthy.url);
    await h.publish({});
    h.clock.advance(60);
    await h.module.dispatcher.runCycle();

    expect(dead.received).toHaveLength(4);
    expect(healthy.received).toHaveLength(1);
    const rows = await h.knex('deliveries').where({ webhook_id: deadHook });
    expect(rows).toHaveLength(5);
    for (const row of rows) {
      expect(row.status).toBe('pending');
      expect(row.attempts).toBeLessThanOrEqual(1);
      expect(new Date(row.next_retry_at).getTime()).toBeGreaterThan(h.clock.now().getTime());
    }
  });

  it("opens for one developer's failing path only: another developer's webhook on the same host is unaffected", async () => {
    const h = await harness({ breaker: { minRequests: 3, failurePercent: 70, openSeconds: 30 } });
    const shared = await receiver((request) => (request.path === '/gone' ? { status: 404 } : { status: 200 }));
    const failing = await webhook(h, `http://${shared.host}/gone`, randomUUID());
    const healthy = await webhook(h, `http://${shared.host}/hook`, randomUUID());
    await h.publish({}, {}, {}, {});
    await h.module.dispatcher.runCycle();
    const state = await metricsRegistry.getSingleMetric('webhook_breakers')?.get();
    expect(state?.values.find((value) => value.labels.state === 'open')?.value).toBe(1);
    const failedAttempts = shared.received.filter((request) => request.path === '/gone').length;
    expect(failedAttempts).toBeGreaterThanOrEqual(3);

    // With the failing webhook's breaker open, the other webhook's new deliveries to the same host go out at once.
    await h.publish({}, {}, {}, {});
    h.clock.advance(60);
    await h.module.dispatcher.runCycle();
    expect(shared.received.filter((request) => request.path === '/hook')).toHaveLength(8);
    expect(shared.received.filter((request) => request.path === '/gone')).toHaveLength(failedAttempts);
    const delivered = await h.knex('deliveries').where({ webhook_id: healthy });
    expect(delivered.map((row) => [row.status, row.attempts])).toEqual(Array.from({ length: 8 }, () => ['delivered', 1]));
    const postponed = await h.knex('deliveries').where({ webhook_id: failing });
    expect(postponed).toHaveLength(8);
    for (const row of postponed) {
      expect(row.status).toBe('pending');
      expect(new Date(row.next_retry_at).getTime()).toBeGreaterThan(h.clock.now().getTime());
    }
  });

  it('lets attempts through again once the breaker half-opens', async () => {
    let healthy = false;
    const h = await harness({ breaker: { minRequests: 2, failurePercent: 70, openSeconds: 1 }, concurrency: 1 });
    const target = await receiver(() => (healthy ? { status: 200 } : { status: 500 }));
    const hook = await webhook(h, target.url);
    await h.publish({}, {});
    await h.module.dispatcher.runCycle();
    expect(target.received).toHaveLength(2);

    healthy = true;
    h.clock.advance(60);
    await h.module.dispatcher.runCycle();
    expect(target.received).toHaveLength(2);

    await sleep(1100);
    h.clock.advance(60);
    await h.module.dispatcher.runCycle();
    h.clock.advance(2);
    await h.module.dispatcher.runCycle();
    expect(target.received).toHaveLength(4);
    const rows = await h.knex('deliveries').where({ webhook_id: hook });
    expect(rows.map((row) => [row.status, row.attempts])).toEqual([['delivered', 2], ['delivered', 2]]);
  });
});
