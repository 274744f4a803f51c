import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { DeliveryStore } from '../src/features/delivery/delivery-store.js';
import { givenUpMessage } from '../src/features/dead-subscribers/pending-deadline.js';
import { SecretCipher } from '../src/features/secrets/secret-cipher.js';
import { testResources } from './support/test-resources.js';
import { START, type Harness } from './support/webhook-harness.js';

/**
 * DELIVERY_MAX_PENDING_HOURS, here 2: a delivery still pending that long after it was queued fails as given
 * up, whether an open breaker kept postponing it or its retries were spaced that far apart; recover queues it again.
 */
const owner = randomUUID();
const HOUR = 3600;
const MAX_PENDING_HOURS = 2;
const resources = testResources();
afterEach(() => resources.closeAll());

async function webhook(h: Harness, url: string): Promise<string> {
  return (await h.call(owner, 'POST', '/webhooks', { url })).body.data.id as string;
}

async function rowsOf(h: Harness, webhookId: string) {
  return h.knex('deliveries').where({ webhook_id: webhookId }).orderBy('created_at');
}

describe('a delivery pending past DELIVERY_MAX_PENDING_HOURS', () => {
  it('fails as given up once an open breaker has postponed it that long, not a second sooner', async () => {
    // The breaker opens at the first failure and stays open for the whole test.
    const h = await resources.harness({ maxPendingHours: MAX_PENDING_HOURS, breaker: { minRequests: 1, failurePercent: 50, openSeconds: 3600 } });
    const dead = await resources.receiver(() => ({ status: 500, body: 'down' }));
    const hook = await webhook(h, dead.url);
    await h.publish({});
    await h.module.dispatcher.runCycle();
    await h.publish({}, {});
    await h.module.dispatcher.runCycle();
    h.clock.advance(MAX_PENDING_HOURS * HOUR);
    await h.module.dispatcher.runCycle();
    expect(dead.received).toHaveLength(1);

    expect(await h.module.deadSubscribers.runOnce()).toEqual({ givenUp: 0, disabled: [] });
    expect((await rowsOf(h, hook)).map((row) => row.status)).toEqual(['pending', 'pending', 'pending']);

    h.clock.advance(1);
    expect((await h.module.deadSubscribers.runOnce()).givenUp).toBe(3);
    const rows = await rowsOf(h, hook);
    for (const row of rows) expect(row).toMatchObject({ status: 'failed', next_retry_at: null, error_message: givenUpMessage(MAX_PENDING_HOURS) });
    // The one attempt made keeps its answer; the postponed ones were never attempted.
    expect(rows.map((row) => [row.attempts, row.response_code]).sort()).toEqual([[0, null], [0, null], [1, 500]]);
    const listed = await h.call(owner, 'GET', `/webhooks/${hook}/deliveries?status=failed`);
    expect(listed.body.data.map((delivery: { errorMessage: string }) => delivery.errorMessage)).toEqual(Array(3).fill(
      'Given up: still not delivered 2 hours after it was queued; POST /webhooks/:id/recover queues it again',
    ));
  });

  it('leaves a delivery in flight alone until its lease has ended', async () => {
    const h = await resources.harness({ maxPendingHours: MAX_PENDING_HOURS });
    const target = await resources.receiver();
    const hook = await webhook(h, target.url);
    await h.publish({});
    h.clock.advance(MAX_PENDING_HOURS * HOUR + 1);
    const now = h.clock.now();
    const [leased] = await new DeliveryStore({ knex: h.knex, cipher: new SecretCipher(h.secretsKey) }).claimDue({
      now, leaseUntil: new Date(now.getTime() + 120_000), claimToken: randomUUID(), limit: 10, hostLimit: 4,
    });
    expect(leased?.webhookId).toBe(hook);

    expect((await h.module.deadSubscribers.runOnce()).givenUp).toBe(0);
    h.clock.advance(120);
    expect((await h.module.deadSubscribers.runOnce()).givenUp).toBe(1);
    expect(await rowsOf(h, hook)).toMatchObject([{ status: 'failed', claim_token: null, claimed_until: null }]);
  });

  it('is queued again by recover, and arrives', async () => {
    // Retries a day apart: the second attempt would come after the deadline.
    const h = await resources.harness({ maxPendingHours: MAX_PENDING_HOURS, retryDelaysSeconds: [24 * HOUR] });
    let up = false;
    const target = await resources.receiver(() => ({ status: up ? 200 : 503 }));
    const hook = await webhook(h, target.url);
    const [change] = await h.publish({});
    await h.module.dispatcher.runCycle();
    h.clock.advance(MAX_PENDING_HOURS * HOUR + 1);
    expect((await h.module.deadSubscribers.runOnce()).givenUp).toBe(1);

    up = true;
    const since = new Date(START.getTime() - HOUR * 1000).toISOString();
    const recovered = await h.call(owner, 'POST', `/webhooks/${hook}/recover`, { since });
    expect(recovered).toMatchObject({ status: 202, body: { data: { enqueued: 1 } } });
    await h.module.dispatcher.runCycle();

    expect(target.received.map((request) => request.body.id)).toEqual([change!.id, change!.id]);
    expect((await rowsOf(h, hook)).map((row) => [row.origin, row.status])).toEqual([['match', 'failed'], ['recover', 'delivered']]);
  });
});
