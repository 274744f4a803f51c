import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DeliveryStore } from '../src/features/delivery/delivery-store.js';
import { SecretCipher } from '../src/features/secrets/secret-cipher.js';
import { singleConnectionStore, type SingleConnectionStore } from './support/single-connection-store.js';
import { testResources } from './support/test-resources.js';

const resources = testResources();
/** Stores of their own pool, closed before the harness's database goes. */
const singles: SingleConnectionStore[] = [];
const closeAll = async () => {
  for (const single of singles.splice(0)) await single.close();
  await resources.closeAll();
};
afterEach(closeAll);
afterAll(closeAll);
const { harness, receiver } = resources;

/** A webhook with two deliveries due, a store on a pool of one recorded connection, and a claim request for both. */
async function twoDueOnOneConnection() {
  const h = await harness();
  const target = await receiver();
  expect((await h.call(randomUUID(), 'POST', '/webhooks', { url: target.url })).status).toBe(201);
  await h.publish({}, {});
  const single = await singleConnectionStore(h);
  singles.push(single);
  const now = h.clock.now();
  const request = { now, leaseUntil: new Date(now.getTime() + 120_000), claimToken: randomUUID(), limit: 10, hostLimit: 4 };
  return { h, single, request };
}

describe('the claim statement', () => {
  // The planner overestimates the claim's candidates, and compiling it took several times its own work.
  it('turns JIT compilation off inside the claim\'s transaction (set_config local to it), sent with BEGIN, before the claim', async () => {
    const { h, single, request } = await twoDueOnOneConnection();
    const claimed = await single.store.claimDue(request);
    expect(claimed).toHaveLength(2);
    // Three round trips: BEGIN with the lock and the setting, the claim, COMMIT.
    expect(single.sent.map((statement) => statement.sql.trim().split(/\s+/).slice(0, 2).join(' '))).toEqual(['begin; select', 'with host_names', 'commit']);
    expect(single.sent[0]!.sql).toContain("set_config('jit', 'off', true)");
    expect(single.sent[0]!.sql).toContain('pg_advisory_xact_lock');
    // Local to the transaction: the pooled connection is back to the server's setting.
    const { rows } = await single.knex.raw<{ rows: { jit: string }[] }>('select current_setting(\'jit\') as jit');
    expect(rows[0]!.jit).toBe((await h.knex.raw<{ rows: { jit: string }[] }>('select current_setting(\'jit\') as jit')).rows[0]!.jit);
  });

  it('rolls a failed claim back, so its connection and the claim lock serve the next claim', async () => {
    const { h, single, request } = await twoDueOnOneConnection();
    // PostgreSQL refuses a negative LIMIT once the lock is taken, inside the transaction.
    await expect(single.store.claimDue({ ...request, limit: -1 })).rejects.toThrow(/LIMIT must not be negative/);
    expect(single.sent.at(-1)!.sql).toBe('rollback');
    // The same (only) connection claims next, and a claim on another connection gets the lock.
    expect(await single.store.claimDue({ ...request, claimToken: randomUUID() })).toHaveLength(2);
    const other = new DeliveryStore({ knex: h.knex, cipher: new SecretCipher(h.secretsKey) });
    expect(await other.claimDue({ ...request, claimToken: randomUUID() })).toEqual([]);
  });

  it('drops a connection that broke during a claim, and claims next on a new one', async () => {
    const { h, single, request } = await twoDueOnOneConnection();
    // Another session holds the claim lock, so the claim waits in `begin; <lock>` until its backend is ended.
    const blocker = await h.knex.transaction();
    try {
      await blocker.raw("select pg_advisory_xact_lock(hashtext('timetable.webhooks.claim'))");
      // Its rejection is handled from the start: it can come, once the backend is ended, before the answer to
      // pg_terminate_backend does, and a rejection with no handler yet fails the run as unhandled.
      const claimFailed = expect(single.store.claimDue(request)).rejects.toThrow();
      const waiting = async () =>
        (await h.knex.raw<{ rows: { pid: number }[] }>("select pid from pg_stat_activity where wait_event_type = 'Lock' and query like 'begin;%'")).rows;
      for (let tries = 0; tries < 100 && (await waiting()).length === 0; tries += 1) await new Promise((resolve) => setTimeout(resolve, 20));
      const [backend] = await waiting();
      expect(backend).toBeDefined();
      await h.knex.raw('select pg_terminate_backend(?)', [backend!.pid]);
      await claimFailed;
      await blocker.rollback();
      // The pool replaced the broken connection: the next claim gets the lock and its deliveries.
      expect(await single.store.claimDue({ ...request, claimToken: randomUUID() })).toHaveLength(2);
    } finally {
      if (!blocker.isCompleted()) await blocker.rollback();
    }
  });

  // The batch is shared among webhooks: counting those with nothing to claim cut a subscriber's backlog
  // into a host limit's worth per claim once a deployment had a few dozen webhooks.
  it('shares the batch only among webhooks with a delivery due, not idle or deleted ones', async () => {
    const h = await harness();
    const busy = await receiver();
    const idle = await receiver();
    expect((await h.call(randomUUID(), 'POST', '/webhooks', { url: busy.url })).status).toBe(201);
    await h.publish(...Array.from({ length: 200 }, () => ({})));
    // Created after the changes, so nothing is due to them; half of them deleted as well.
    for (let index = 0; index < 40; index += 1) {
      const owner = randomUUID();
      const created = await h.call(owner, 'POST', '/webhooks', { url: `${idle.url}?${index}` });
      expect(created.status).toBe(201);
      if (index % 2 === 0) expect((await h.call(owner, 'DELETE', `/webhooks/${created.body.data.id}`)).status).toBe(200);
    }
    const store = new DeliveryStore({ knex: h.knex, cipher: new SecretCipher(h.secretsKey) });
    const now = h.clock.now();
    const claimed = await store.claimDue({
      now, leaseUntil: new Date(now.getTime() + 120_000), claimToken: randomUUID(), limit: 160, hostLimit: 4, claimedBy: randomUUID(), hostAheadLimit: 128,
    });
    // The whole claim-ahead cap of the one host with work, where counting 41 webhooks gave it ceil(160 / 41) = 4.
    expect(claimed).toHaveLength(128);
    expect(new Set(claimed.map((delivery) => delivery.url))).toEqual(new Set([busy.url]));
  });

  it('leases ahead only the hosts it names as answering, when it names any', async () => {
    const h = await harness();
    const known = await receiver();
    const stranger = await receiver();
    for (const target of [known, stranger]) expect((await h.call(randomUUID(), 'POST', '/webhooks', { url: target.url })).status).toBe(201);
    await h.publish(...Array.from({ length: 50 }, () => ({})));
    const store = new DeliveryStore({ knex: h.knex, cipher: new SecretCipher(h.secretsKey) });
    const now = h.clock.now();
    const claimedBy = randomUUID();
    const claim = (answeringHosts?: string[]) =>
      store.claimDue({ now, leaseUntil: new Date(now.getTime() + 120_000), claimToken: randomUUID(), limit: 200, hostLimit: 4, claimedBy, hostAheadLimit: 128, answeringHosts });
    const perHost = (claimed: { url: string }[]) => [known.url, stranger.url].map((url) => claimed.filter((delivery) => delivery.url === url).length);
    const knownHost = new URL(known.url).host;
    // The one it names is leased ahead (its 50), the other its 4 slots' worth.
    expect(perHost(await claim([knownHost]))).toEqual([50, 4]);
    // Named again, the stranger stays at its cap; without names (the store's other callers) any host may be leased ahead.
    expect(perHost(await claim([knownHost]))).toEqual([0, 0]);
    expect(perHost(await claim())).toEqual([0, 46]);
  });

  it('gives hosts it leases no more than their slots no share of the batch', async () => {
    // Ten subscribers not yet seen answering take their slots' worth each; the one known host takes the
    // rest, up to its cap of leases ahead, rather than an eleventh of the batch.
    const h = await harness();
    const known = await receiver();
    const strangers = await Promise.all(Array.from({ length: 10 }, () => receiver()));
    for (const target of [known, ...strangers]) expect((await h.call(randomUUID(), 'POST', '/webhooks', { url: target.url })).status).toBe(201);
    await h.publish(...Array.from({ length: 200 }, () => ({})));
    const store = new DeliveryStore({ knex: h.knex, cipher: new SecretCipher(h.secretsKey) });
    const now = h.clock.now();
    const claimed = await store.claimDue({
      now, leaseUntil: new Date(now.getTime() + 120_000), claimToken: randomUUID(), limit: 512, hostLimit: 4, claimedBy: randomUUID(), hostAheadLimit: 128,
      answeringHosts: [new URL(known.url).host],
    });
    expect(claimed.filter((delivery) => delivery.url === known.url)).toHaveLength(128);
    for (const stranger of strangers) expect(claimed.filter((delivery) => delivery.url === stranger.url)).toHaveLength(4);
  });

  it('gives hosts another dispatcher holds leases to no share of the batch', async () => {
    // Another replica holds a lease to each of ten subscribers, which holds them to the host limit here;
    // the host only this dispatcher serves takes the rest, up to its cap of leases ahead, not an eleventh.
    const h = await harness();
    const strangers = await Promise.all(Array.from({ length: 10 }, () => receiver()));
    for (const target of strangers) expect((await h.call(randomUUID(), 'POST', '/webhooks', { url: target.url })).status).toBe(201);
    await h.publish(...Array.from({ length: 20 }, () => ({})));
    const store = new DeliveryStore({ knex: h.knex, cipher: new SecretCipher(h.secretsKey) });
    const now = h.clock.now();
    const lease = { now, leaseUntil: new Date(now.getTime() + 120_000), limit: 512, hostAheadLimit: 128 };
    // Naming no host as answering holds each to the host limit; ten leases in turns of the ten developers are one a host.
    const byOther = await store.claimDue({ ...lease, limit: 10, claimToken: randomUUID(), hostLimit: 4, claimedBy: randomUUID(), answeringHosts: [] });
    expect(byOther).toHaveLength(10);
    // Published once the other replica holds its leases: the new webhook's host has none held by anyone.
    const known = await receiver();
    expect((await h.call(randomUUID(), 'POST', '/webhooks', { url: known.url })).status).toBe(201);
    await h.publish(...Array.from({ length: 200 }, () => ({})));
    const hosts = [known, ...strangers].map((target) => new URL(target.url).host);
    const claimed = await store.claimDue({ ...lease, claimToken: randomUUID(), hostLimit: 4, claimedBy: randomUUID(), answeringHosts: hosts });
    expect(claimed.filter((delivery) => delivery.url === known.url)).toHaveLength(128);
    // Each of the others: the host limit less the lease the other replica holds.
    for (const stranger of strangers) expect(claimed.filter((delivery) => delivery.url === stranger.url)).toHaveLength(3);
  });
});
