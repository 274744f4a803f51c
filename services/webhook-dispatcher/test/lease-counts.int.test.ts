import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest } from '@timetable/db';
import { createMigratedKnex } from '@timetable/testing';
import { DeliveryStore, type AttemptRecord, type ClaimedDelivery } from '../src/features/delivery/delivery-store.js';
import { SecretCipher } from '../src/features/secrets/secret-cipher.js';
import { webhookMigrations, WEBHOOKS_SCHEMA } from '../src/index.js';
import { testResources } from './support/test-resources.js';
import type { Harness } from './support/webhook-harness.js';

/**
 * The load every claim reads is kept in `lease_counts` (leases per claim, host and developer), not read from
 * the leased rows. What must hold: the counts equal the leases held, whichever way a lease ends; a lease
 * ended late never takes off another claim's count; statements ending leases at once never deadlock; the
 * leases held when the table is created are counted.
 */
const resources = testResources();
afterEach(() => resources.closeAll());
afterAll(() => resources.closeAll());
const { harness, receiver } = resources;

async function webhook(h: Harness, url: string, owner: string): Promise<void> {
  const response = await h.call(owner, 'POST', '/webhooks', { url });
  expect(response.status).toBe(201);
}

/** Leases held per host and developer, as the counts say and as the rows say: the two must agree. */
async function loads(h: Harness): Promise<{ counted: Record<string, number>; rows: Record<string, number> }> {
  const now = h.clock.now();
  const counted: { key: string; n: number }[] = await h.knex('lease_counts')
    .select(h.knex.raw("target_host || ' ' || developer_id as key"), h.knex.raw('sum(leased)::int as n'))
    .where('claimed_until', '>', now)
    .groupBy('target_host', 'developer_id');
  const rows: { key: string; n: number }[] = await h.knex('deliveries as d')
    .join('webhooks as w', 'w.id', 'd.webhook_id')
    .select(h.knex.raw("w.target_host || ' ' || w.developer_id as key"), h.knex.raw('count(*)::int as n'))
    .where('d.status', 'pending')
    .where('d.claimed_until', '>', now)
    .groupBy('w.target_host', 'w.developer_id');
  const byKey = (list: { key: string; n: number }[]) => Object.fromEntries(list.filter((entry) => entry.n > 0).map((entry) => [entry.key, entry.n]));
  return { counted: byKey(counted), rows: byKey(rows) };
}

function delivered(at: Date): AttemptRecord {
  return {
    status: 'delivered', attempts: 1, lastAttemptAt: at, nextRetryAt: null, responseCode: 204, responseBody: null,
    errorMessage: null, deliveredAt: at, payload: '{"type":"test"}',
  };
}

/** Two hosts, two developers each: four counters per claim. */
async function fourWebhooks(h: Harness, changes: number): Promise<void> {
  const hosts = [await receiver(), await receiver()];
  for (const target of hosts) for (const owner of [randomUUID(), randomUUID()]) await webhook(h, target.url, owner);
  await h.publish(...Array.from({ length: changes }, () => ({})));
}

function storeOf(h: Harness): DeliveryStore {
  return new DeliveryStore({ knex: h.knex, cipher: new SecretCipher(h.secretsKey) });
}

function claimer(h: Harness, store: DeliveryStore, claimedBy = randomUUID()) {
  return (leaseSeconds = 120) => {
    const now = h.clock.now();
    return store.claimDue({
      now, leaseUntil: new Date(now.getTime() + leaseSeconds * 1000), claimToken: randomUUID(), limit: 400, hostLimit: 4,
      claimedBy, hostAheadLimit: 400,
    });
  };
}

describe('lease counts', () => {
  it('count every lease a claim takes, and every way of ending one takes it off', async () => {
    const h = await harness();
    await fourWebhooks(h, 10);
    const store = storeOf(h);
    const claimed = await claimer(h, store)();
    expect(claimed).toHaveLength(40);
    const counters = await h.knex('lease_counts').select('target_host', 'developer_id', 'leased');
    expect(counters).toHaveLength(4);
    expect(counters.every((counter) => counter.leased === 10)).toBe(true);
    let load = await loads(h);
    expect(load.counted).toEqual(load.rows);

    const [recorded, released, postponed, failed] = [claimed.slice(0, 10), claimed.slice(10, 20), claimed.slice(20, 30), claimed.slice(30)];
    const now = h.clock.now();
    // None lost: every one was written.
    expect(await store.recordAttempts(recorded.map((lease) => ({ lease, record: delivered(now) })))).toEqual([]);
    load = await loads(h);
    expect(load.counted).toEqual(load.rows);
    await store.releaseAll(released);
    load = await loads(h);
    expect(load.counted).toEqual(load.rows);
    const webhookId = postponed[0]!.webhookId;
    const sameEndpoint = postponed.filter((lease) => lease.webhookId === webhookId);
    await store.postpone(sameEndpoint, { webhookId, retryAt: new Date(now.getTime() + 60_000), now });
    await store.releaseAll(postponed.filter((lease) => lease.webhookId !== webhookId));
    load = await loads(h);
    expect(load.counted).toEqual(load.rows);
    for (const lease of failed) await store.fail(lease, 'Webhook deleted');
    load = await loads(h);
    expect(load).toEqual({ counted: {}, rows: {} });

    // The next claim clears the counters of claims whose leases have all ended.
    const again = await claimer(h, store)();
    const tokens = await h.knex('lease_counts').distinct('claim_token').pluck('claim_token');
    expect(tokens).toEqual([again[0]!.claimToken]);
  });

  it('a lease ended after it ran out and was claimed again leaves the new claim counted', async () => {
    const h = await harness();
    await fourWebhooks(h, 2);
    const store = storeOf(h);
    const late = await claimer(h, store)(10);
    expect(late).toHaveLength(8);
    h.clock.advance(11);
    const taken = await claimer(h, store)();
    expect(taken.map((lease) => lease.id).sort()).toEqual(late.map((lease) => lease.id).sort());

    const lost = await store.recordAttempts(late.map((lease) => ({ lease, record: delivered(h.clock.now()) })));
    await store.releaseAll(late);
    expect([...lost].sort()).toEqual(late.map((lease) => lease.id).sort());
    const load = await loads(h);
    expect(Object.values(load.counted)).toEqual([2, 2, 2, 2]);
    expect(load.counted).toEqual(load.rows);
  });

  it('leases of a webhook deleted while they are held are taken off when their holder ends them', async () => {
    const h = await harness();
    const target = await receiver();
    const owner = randomUUID();
    await webhook(h, target.url, owner);
    const hooks = await h.call(owner, 'GET', '/webhooks');
    await h.publish({}, {}, {});
    const store = storeOf(h);
    const claimed = await claimer(h, store)();
    expect(claimed).toHaveLength(3);
    expect((await h.call(owner, 'DELETE', `/webhooks/${hooks.body.data[0].id as string}`)).status).toBe(200);
    // The rows no longer name the leases, but the holder still holds them until it ends them.
    expect(Object.values((await loads(h)).counted)).toEqual([3]);

    const ended = claimed.slice(0, 2);
    expect((await store.recordAttempts(ended.map((lease) => ({ lease, record: delivered(h.clock.now()) })))).sort()).toEqual(ended.map((lease) => lease.id).sort());
    await store.fail(claimed[2]!, 'Webhook deleted');
    expect(await loads(h)).toEqual({ counted: {}, rows: {} });
    expect((await h.knex('deliveries').pluck('status')).every((status) => status === 'failed')).toBe(true);
  });

  it('statements ending leases of the same counters at once all complete and leave the counts exact', async () => {
    const h = await harness();
    await fourWebhooks(h, 50);
    const store = storeOf(h);
    const claimed: ClaimedDelivery[] = await claimer(h, store)();
    expect(claimed).toHaveLength(200);
    // Every statement names leases of all four counters, half of them in the reverse order of the other half.
    const groups = Array.from({ length: 20 }, (_, i) => claimed.filter((_, index) => index % 20 === i));
    const now = h.clock.now();
    await Promise.all(
      groups.map((group, i) => {
        const ordered = i % 2 === 0 ? group : [...group].reverse();
        return i % 3 === 0
          ? store.releaseAll(ordered)
          : store.recordAttempts(ordered.map((lease) => ({ lease, record: delivered(now) })));
      }),
    );
    expect(await loads(h)).toEqual({ counted: {}, rows: {} });
  });
});

describe('creating the lease counts', () => {
  it('counts the leases held when it runs', async () => {
    const before = Object.fromEntries(Object.entries(webhookMigrations).filter(([name]) => !name.endsWith('_add_lease_counts')));
    expect(Object.keys(before)).toHaveLength(Object.keys(webhookMigrations).length - 1);
    const old = await createMigratedKnex(WEBHOOKS_SCHEMA, before);
    try {
      const { knex } = old;
      const developer = randomUUID();
      const webhookId = randomUUID();
      const at = new Date();
      await knex('webhooks').insert({
        id: webhookId, developer_id: developer, url: 'http://127.0.0.1:9/hook', target_host: '127.0.0.1:9', filter_scope: 'all',
        event_types: ['*'], is_active: true, created_at: at, updated_at: at,
      });
      const claimToken = randomUUID();
      const dispatcher = randomUUID();
      const rows = Array.from({ length: 5 }, (_, i) => ({
        id: randomUUID(), webhook_id: webhookId, message_id: `msg_${i}`, event_type: 'course.updated', status: 'pending',
        next_retry_at: at, created_at: at, origin: 'test',
        // Three held now, one whose lease ran out, one never leased.
        ...(i < 3 ? { claim_token: claimToken, claimed_until: new Date(at.getTime() + 60_000), claimed_by: dispatcher } : {}),
        ...(i === 3 ? { claim_token: randomUUID(), claimed_until: new Date(at.getTime() - 60_000), claimed_by: dispatcher } : {}),
      }));
      await knex('deliveries').insert(rows);

      await migrateToLatest(knex, WEBHOOKS_SCHEMA, webhookMigrations);
      const counters = await knex('lease_counts').select('claim_token', 'target_host', 'developer_id', 'claimed_by', 'leased');
      expect(counters).toEqual([{ claim_token: claimToken, target_host: '127.0.0.1:9', developer_id: developer, claimed_by: dispatcher, leased: 3 }]);
      const indexes = await knex('pg_indexes').where({ schemaname: WEBHOOKS_SCHEMA, tablename: 'deliveries' }).pluck('indexname');
      expect(indexes).not.toContain('deliveries_leased');
    } finally {
      await old.close();
    }
  });
});
