/**
 * A claim over a connection that stops answering. The claim's transaction holds the lock every replica's
 * claims take in turn; a claimer whose network goes silent inside it must neither hang itself nor keep the
 * others from claiming until the server's keepalive gives its connection up (hours). Its statements give up
 * after the claim's timeout and its session is ended, and the server ends the transaction once it sits idle
 * that long.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createKnex, type Knex } from '@timetable/db';
import { TcpProxy } from '@timetable/testing';
import type { ClaimTimeouts } from '../src/features/delivery/claim-transaction.js';
import { DeliveryStore } from '../src/features/delivery/delivery-store.js';
import { SecretCipher } from '../src/features/secrets/secret-cipher.js';
import { WEBHOOKS_SCHEMA } from '../src/index.js';
import { connectionStringOf } from './support/single-connection-store.js';
import { testResources } from './support/test-resources.js';
import type { Harness } from './support/webhook-harness.js';

/** As CLAIM_TIMEOUTS, shorter: the server's idle and statement limits below the client's wait. */
const TIMEOUTS: ClaimTimeouts = { idleMs: 250, statementMs: 1000, unacknowledgedMs: 2000, answerMs: 1500 };

const resources = testResources();
const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const resource of opened.splice(0).reverse()) await resource.close();
  await resources.closeAll();
});
afterAll(() => resources.closeAll());

/** Three deliveries due to one receiver. */
async function threeDue(h: Harness): Promise<void> {
  const target = await resources.receiver();
  const owner = randomUUID();
  expect((await h.call(owner, 'POST', '/webhooks', { url: target.url })).status).toBe(201);
  await h.publish({}, {}, {});
}

function claim(h: Harness, store: DeliveryStore) {
  const now = h.clock.now();
  return store.claimDue({ now, leaseUntil: new Date(now.getTime() + 120_000), claimToken: randomUUID(), limit: 100, hostLimit: 4, claimedBy: randomUUID() });
}

/** A replica's store whose one connection runs through a proxy the test can silence. */
async function storeBehindProxy(h: Harness): Promise<{ store: DeliveryStore; knex: Knex; proxy: TcpProxy }> {
  const connectionString = connectionStringOf(h);
  const { hostname, port } = new URL(connectionString);
  const proxy = await TcpProxy.start(hostname, Number(port));
  const knex = createKnex({ connectionString: proxy.urlFor(connectionString), schema: WEBHOOKS_SCHEMA, poolMax: 1 });
  opened.push({ close: () => knex.destroy() }, { close: () => proxy.close() });
  const store = new DeliveryStore({ knex, cipher: new SecretCipher(h.secretsKey), claimTimeouts: TIMEOUTS });
  return { store, knex, proxy };
}

/** The server session behind the store's one connection. */
async function sessionOf(knex: Knex): Promise<number> {
  return (await knex.raw<{ rows: { pid: number }[] }>('select pg_backend_pid() as pid')).rows[0]!.pid;
}

/** The network goes silent as soon as the server has answered the statement that begins the claim and takes its lock. */
async function silenceAfterTheLock(knex: Knex, proxy: TcpProxy): Promise<void> {
  const connection = (await knex.client.acquireConnection()) as { query: (...args: unknown[]) => Promise<unknown> };
  const query = connection.query.bind(connection);
  connection.query = async (...args: unknown[]) => {
    const answer = await query(...args);
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text;
    if (text.startsWith('begin;')) proxy.stall();
    return answer;
  };
  await knex.client.releaseConnection(connection);
}

describe('a claim on a connection that stops answering', () => {
  it('fails after the claim\'s timeout, and the server frees the claim lock for the other replicas while the silence lasts', async () => {
    const h = await resources.harness();
    await threeDue(h);
    const silent = await storeBehindProxy(h);
    await silenceAfterTheLock(silent.knex, silent.proxy);
    await expect(claim(h, silent.store)).rejects.toThrow('Query read timeout');

    // The silent claimer's session still holds the lock as far as its client knows; the server ends it once its
    // transaction has sat idle for its limit, well inside another replica's wait for the lock, so that replica's
    // claim gets the lock and every delivery: the silent claim leased nothing.
    const other = new DeliveryStore({ knex: h.knex, cipher: new SecretCipher(h.secretsKey), claimTimeouts: TIMEOUTS });
    expect(await claim(h, other)).toHaveLength(3);
  });

  it('fails after the claim\'s timeout when nothing is answered, and claims again on a new connection once the network is back', async () => {
    const h = await resources.harness();
    await threeDue(h);
    const silent = await storeBehindProxy(h);
    const session = () => sessionOf(silent.knex);
    const before = await session();
    silent.proxy.stall();
    await expect(claim(h, silent.store)).rejects.toThrow('Query read timeout');

    silent.proxy.resume();
    // Its connection was left mid-statement: the pool hands out a new one rather than that one.
    expect(await claim(h, silent.store)).toHaveLength(3);
    expect(await session()).not.toBe(before);
  });

  it('is cancelled by the server when it runs past its limit, rolled back, and its connection kept', async () => {
    const h = await resources.harness();
    await threeDue(h);
    const { store, knex } = await storeBehindProxy(h);
    const session = () => sessionOf(knex);
    const before = await session();
    // Another transaction keeps the claim from reading the deliveries until the server cancels it.
    const blocker = await h.knex.transaction();
    try {
      await blocker.raw('lock table deliveries in access exclusive mode');
      await expect(claim(h, store)).rejects.toThrow('canceling statement due to statement timeout');
    } finally {
      await blocker.rollback();
    }
    // The server answered, so the claim was rolled back on a connection that serves on, and the lock is free.
    expect(await session()).toBe(before);
    expect(await claim(h, store)).toHaveLength(3);
  });
});
