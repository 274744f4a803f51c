import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { captureLogger } from '@timetable/testing';
import { AddressPolicy } from '../src/features/addresses/address-policy.js';
import { EndpointBreakers } from '../src/features/breaker/endpoint-breakers.js';
import { AddressGuard } from '../src/features/delivery/address-guard.js';
import { DeliveryDispatcher } from '../src/features/delivery/delivery-dispatcher.js';
import { deliveriesTotal } from '../src/features/delivery/delivery-metrics.js';
import { DeliveryStore, type AttemptRecord, type HeldLease } from '../src/features/delivery/delivery-store.js';
import { HttpSender } from '../src/features/delivery/http-sender.js';
import { SecretCipher } from '../src/features/secrets/secret-cipher.js';
import { testResources } from './support/test-resources.js';
import { LOOPBACK_ALLOWED, type Harness } from './support/webhook-harness.js';
import { waitFor } from './support/end-to-end-system.js';

/**
 * Outcomes are written in batches and deliveries are leased ahead of free slots. What must not change: an
 * outcome counts only once written, and only under the lease it was sent under; a dispatcher that dies with
 * outcomes unwritten leaves deliveries that are sent again under the same webhook-id; per-host limits hold
 * across replicas.
 */
const resources = testResources();
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  await resources.closeAll();
});
afterAll(() => resources.closeAll());
const { harness, receiver } = resources;

async function webhook(h: Harness, url: string, owner = randomUUID()): Promise<string> {
  const response = await h.call(owner, 'POST', '/webhooks', { url });
  expect(response.status).toBe(201);
  return response.body.data.id as string;
}

type Rows = { id: string; status: string; attempts: number; claim_token: string | null }[];

/** A dispatcher of its own on the harness's database, whose outcome writes the test can hold back. */
function dispatcherWith(h: Harness, recordAttempts: (store: DeliveryStore, batch: { lease: HeldLease; record: AttemptRecord }[]) => Promise<string[]>) {
  const store = new DeliveryStore({ knex: h.knex, cipher: new SecretCipher(h.secretsKey) });
  const original = store.recordAttempts.bind(store);
  store.recordAttempts = (batch) => recordAttempts({ recordAttempts: original } as DeliveryStore, batch);
  const { logger, lines } = captureLogger('info');
  const sender = new HttpSender({ guard: new AddressGuard({ policy: new AddressPolicy({ allowCidrs: LOOPBACK_ALLOWED, denyCidrs: [] }) }), timeoutMs: 2000 });
  const breakers = new EndpointBreakers({ settings: { minRequests: 1000, failurePercent: 70, openSeconds: 30 }, now: h.clock.now });
  const dispatcher = new DeliveryDispatcher({
    store, sender, breakers, logger,
    settings: { intervalSeconds: 3600, retryDelaysSeconds: [60, 300, 900], timeoutMs: 2000, concurrency: 8, hostConcurrency: 4, drainTimeoutMs: 100, now: h.clock.now },
  });
  stops.push(async () => {
    breakers.shutdown();
    await sender.close();
  });
  return { dispatcher, lines };
}

describe('outcomes written in batches', () => {
  it('records 200 attempts in far fewer statements, each delivered once with one attempt', async () => {
    const h = await harness({ concurrency: 32 });
    const targets = [await receiver(), await receiver()];
    for (const target of targets) await webhook(h, target.url);
    await h.publish(...Array.from({ length: 100 }, () => ({})));
    let recordStatements = 0;
    const count = (query: { sql: string }) => {
      if (query.sql.includes('json_to_recordset') && query.sql.includes('response_code')) recordStatements += 1;
    };
    h.knex.on('query', count);
    try {
      await h.module.dispatcher.runCycle();
    } finally {
      h.knex.off('query', count);
    }
    const rows: Rows = await h.knex('deliveries').select('id', 'status', 'attempts', 'claim_token');
    expect(rows).toHaveLength(200);
    expect(rows.every((row) => row.status === 'delivered' && row.attempts === 1 && row.claim_token === null)).toBe(true);
    expect(targets.map((target) => target.received.length)).toEqual([100, 100]);
    expect(recordStatements).toBeGreaterThan(0);
    expect(recordStatements).toBeLessThan(100);
  });

  it('leaves an outcome that was never written (the process died) pending and leased, and it is sent again under the same webhook-id', async () => {
    const h = await harness();
    const target = await receiver();
    await webhook(h, target.url);
    await h.publish({}, {}, {});
    // The dispatcher sends, then dies before its batch reaches the database.
    const crashed = dispatcherWith(h, () => new Promise<string[]>(() => undefined));
    void crashed.dispatcher.runCycle();
    await waitFor('the three attempts', () => target.received.length === 3);

    const held: Rows = await h.knex('deliveries').select('id', 'status', 'attempts', 'claim_token');
    expect(held.every((row) => row.status === 'pending' && row.attempts === 0 && row.claim_token !== null)).toBe(true);
    // Another dispatcher leaves the live leases alone.
    await h.module.dispatcher.runCycle();
    expect(target.received).toHaveLength(3);

    h.clock.advance(2 * 2 + 60 + 1);
    await h.module.dispatcher.runCycle();
    expect(target.received).toHaveLength(6);
    const ids = (from: number, to: number) => target.received.slice(from, to).map((request) => String(request.headers['webhook-id'])).sort();
    expect(ids(3, 6)).toEqual(ids(0, 3));
    const after: Rows = await h.knex('deliveries').select('id', 'status', 'attempts', 'claim_token');
    expect(after.every((row) => row.status === 'delivered' && row.attempts === 1)).toBe(true);
  });

  it('discards an outcome whose lease was lost before its batch was written, says so, and does not count it', async () => {
    const delivered = async () => (await deliveriesTotal.get()).values.find((value) => value.labels.status === 'delivered')?.value ?? 0;
    const deliveredBefore = await delivered();
    const h = await harness();
    const target = await receiver();
    await webhook(h, target.url);
    await h.publish({});
    let write: () => void = () => undefined;
    const late = dispatcherWith(h, async (store, batch) => {
      await new Promise<void>((resolve) => (write = resolve));
      return store.recordAttempts(batch);
    });
    const lateCycle = late.dispatcher.runCycle();
    await waitFor('the first attempt', () => target.received.length === 1);

    // Its lease runs out meanwhile; another dispatcher sends and records the delivery.
    h.clock.advance(2 * 2 + 60 + 1);
    await h.module.dispatcher.runCycle();
    expect(target.received).toHaveLength(2);
    write();
    await lateCycle;

    const [row] = await h.knex('deliveries').select('status', 'attempts', 'claim_token');
    expect(row).toMatchObject({ status: 'delivered', attempts: 1, claim_token: null });
    expect(late.lines().some((line) => line.msg === 'delivery lease lost before recording; outcome discarded')).toBe(true);
    // One delivery, written once: the discarded outcome is not among webhook_deliveries_total's deliveries.
    expect((await delivered()) - deliveredBefore).toBe(1);
  });
});

describe('leasing ahead of free slots', () => {
  it('lets one dispatcher lease beyond the host limit only while no other holds a lease to that host', async () => {
    const h = await harness();
    const target = await receiver();
    await webhook(h, target.url);
    await h.publish(...Array.from({ length: 30 }, () => ({})));
    const store = new DeliveryStore({ knex: h.knex, cipher: new SecretCipher(h.secretsKey) });
    const now = h.clock.now();
    const claim = (claimedBy: string) =>
      store.claimDue({ now, leaseUntil: new Date(now.getTime() + 120_000), claimToken: randomUUID(), limit: 100, hostLimit: 4, claimedBy, hostAheadLimit: 20 });
    const [a, b] = [randomUUID(), randomUUID()];

    const first = await claim(a);
    expect(first).toHaveLength(20);
    expect(await claim(b)).toHaveLength(0);
    expect(await claim(a)).toHaveLength(0);

    // Down to 2 leases: another dispatcher may take the host limit's remainder, and then neither may exceed it.
    await store.releaseAll(first.slice(2));
    expect(await claim(b)).toHaveLength(2);
    expect(await claim(a)).toHaveLength(0);
    expect(await claim(b)).toHaveLength(0);
    const leased = await h.knex('deliveries').whereNotNull('claim_token').count({ n: '*' }).first();
    expect(Number(leased?.n)).toBe(4);
  });
});
