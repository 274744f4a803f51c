import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { testResources } from './support/test-resources.js';
import type { Harness } from './support/webhook-harness.js';
import { waitFor } from './support/end-to-end-system.js';

/** One developer cannot hold up the others: webhook and test limits, the per-host limit, fair claiming. */
const resources = testResources();
afterAll(() => resources.closeAll());
const { harness, receiver } = resources;

async function webhook(h: Harness, owner: string, body: Record<string, unknown>): Promise<string> {
  const response = await h.call(owner, 'POST', '/webhooks', body);
  expect(response.status).toBe(201);
  return response.body.data.id as string;
}

describe('webhooks per developer (MAX_WEBHOOKS_PER_DEVELOPER, default 25)', () => {
  it('answers the 26th webhook with 409 CONFLICT, and accepts one again after a delete', async () => {
    const h = await harness();
    const owner = randomUUID();
    const ids: string[] = [];
    for (let index = 0; index < 25; index += 1) ids.push(await webhook(h, owner, { url: `https://hooks.example.edu/${index}` }));
    const refused = await h.call(owner, 'POST', '/webhooks', { url: 'https://hooks.example.edu/26' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('at most 25 webhooks') });
    expect((await h.call(randomUUID(), 'POST', '/webhooks', { url: 'https://hooks.example.edu/other' })).status).toBe(201);
    await h.call(owner, 'DELETE', `/webhooks/${ids[0]}`);
    expect((await h.call(owner, 'POST', '/webhooks', { url: 'https://hooks.example.edu/again' })).status).toBe(201);
  });

  it('holds under concurrent creates', async () => {
    const h = await harness({ maxWebhooksPerDeveloper: 3 });
    const owner = randomUUID();
    const answers = await Promise.all(Array.from({ length: 10 }, (_, index) => h.call(owner, 'POST', '/webhooks', { url: `https://hooks.example.edu/${index}` })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, 201, 409, 409, 409, 409, 409, 409, 409]);
    expect(await h.module.webhookCounter.countFor(owner)).toBe(3);
  });
});

describe('test deliveries per webhook: at most 10 a minute', () => {
  it('answers the 11th test call within a minute with 429 and Retry-After, and accepts again once the window has moved', async () => {
    const h = await harness();
    const owner = randomUUID();
    const hook = await webhook(h, owner, { url: 'https://hooks.example.edu/tests' });
    for (let index = 0; index < 10; index += 1) {
      expect((await h.call(owner, 'POST', `/webhooks/${hook}/test`)).status).toBe(204);
      h.clock.advance(1);
    }
    const refused = await fetch(`${h.api.url}/v1/timetable/webhooks/${hook}/test`, { method: 'POST', headers: h.identity.headersFor(owner) });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('50');
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('RATE_LIMITED');
    h.clock.advance(50);
    expect((await h.call(owner, 'POST', `/webhooks/${hook}/test`)).status).toBe(204);
    expect((await h.call(owner, 'POST', `/webhooks/${hook}/test`)).status).toBe(429);
    const queued = await h.knex('deliveries').where({ webhook_id: hook, origin: 'test' }).count({ n: '*' }).first();
    expect(Number(queued?.n)).toBe(11);
  });
});

/**
 * Two developers' webhooks, one to a host that never answers (20 s timeout) and one to a host that answers at
 * once. With `answersFirst`, the hung host answers its first request, as a subscriber that stops answering.
 */
async function hungAndLiveHosts({ answersFirst = false } = {}) {
  const h = await harness({ timeoutMs: 20_000, drainTimeoutMs: 100 });
  const dead = await receiver((_, index) => (answersFirst && index === 0 ? { status: 204 } : 'hang'));
  const live = await receiver();
  const deadCourse = randomUUID();
  const liveCourse = randomUUID();
  const deadHook = await webhook(h, randomUUID(), { url: dead.url, filterScope: 'course', filterCourseId: deadCourse });
  await webhook(h, randomUUID(), { url: live.url, filterScope: 'course', filterCourseId: liveCourse });
  return { h, dead, live, deadCourse, deadHook, liveCourse };
}

/** Counts the leases held to one webhook's deliveries now, and remembers the most it has counted. */
function leaseSampler(h: Harness, webhookId: string) {
  const sampler = {
    most: 0,
    async now(): Promise<number> {
      const row = await h.knex('deliveries').where({ webhook_id: webhookId, status: 'pending' }).where('claimed_until', '>', h.clock.now()).count({ n: '*' }).first();
      sampler.most = Math.max(sampler.most, Number(row?.n));
      return Number(row?.n);
    },
  };
  return sampler;
}

describe('fair claiming', () => {
  it("delivers another developer's 20 to a fast host in the first cycle while 2,000 wait for a host answering after 5 s", async () => {
    const h = await harness({ drainTimeoutMs: 100 });
    const slow = await receiver(() => ({ status: 200, delayMs: 5000 }));
    const fast = await receiver();
    const slowCourse = randomUUID();
    const fastCourse = randomUUID();
    await webhook(h, randomUUID(), { url: slow.url, filterScope: 'course', filterCourseId: slowCourse });
    await webhook(h, randomUUID(), { url: fast.url, filterScope: 'course', filterCourseId: fastCourse });
    await h.publish(...Array.from({ length: 2000 }, () => ({ courseId: slowCourse })));
    h.clock.advance(1);
    await h.publish(...Array.from({ length: 20 }, () => ({ courseId: fastCourse })));

    const cycle = h.module.dispatcher.runCycle();
    await waitFor('the fast host to receive its 20 deliveries', () => fast.received.length === 20);
    // The fast host was served while the slow one had only its 4 slots, none of them answered yet.
    expect(slow.received.length).toBeLessThanOrEqual(4);
    expect(slow.maxConcurrentRequests).toBeLessThanOrEqual(4);
    await h.module.dispatcher.stop();
    await cycle;
    const fastDelivered = await h.knex('deliveries').where({ status: 'delivered' }).count({ n: '*' }).first();
    expect(Number(fastDelivered?.n)).toBe(20);
  });

  it('claims again a second after a short claim although only attempts to a host that never answers are in flight', async () => {
    const { h, dead, live, deadCourse, liveCourse } = await hungAndLiveHosts();
    await h.publish(...Array.from({ length: 4 }, () => ({ courseId: deadCourse })), ...Array.from({ length: 2 }, () => ({ courseId: liveCourse })));

    // The claim of these six comes back short; the two live attempts end, fewer than the claim waits for.
    const cycle = h.module.dispatcher.runCycle();
    await waitFor('the first six attempts', () => live.received.length === 2 && dead.received.length === 4);
    await h.publish(...Array.from({ length: 2 }, () => ({ courseId: liveCourse })));
    // Claimed once the one-second pause is over, not when the dead host's attempts time out after 20 s.
    await waitFor('the two published later', () => live.received.length === 4, 5000);
    await h.module.dispatcher.stop();
    await cycle;
  });

  it('claims at once when a cycle is asked for while one waits only on attempts to a host that never answers', async () => {
    const { h, dead, live, deadCourse, liveCourse } = await hungAndLiveHosts();
    await h.publish(...Array.from({ length: 4 }, () => ({ courseId: deadCourse })));
    const cycle = h.module.dispatcher.runCycle();
    await waitFor('the four hung attempts', () => dead.received.length === 4);
    await h.publish(...Array.from({ length: 2 }, () => ({ courseId: liveCourse })));
    // No attempt has ended, so the running cycle's own pacing would claim only after its one-second pause
    // (delivery-cycle.test.ts shows the claim at once, on a clock that does not move).
    void h.module.dispatcher.runCycle();
    await waitFor('the two published later', () => live.received.length === 2, 3000);
    await h.module.dispatcher.stop();
    await cycle;
  });

  it('leases a host whose every slot has hung for a second no more than its slots, and hands back what waited for it', async () => {
    const { h, dead, live, deadCourse, deadHook, liveCourse } = await hungAndLiveHosts({ answersFirst: true });
    // It answers once, so the dispatcher knows it as a host that answers and leases it ahead.
    await h.publish({ courseId: deadCourse });
    await h.module.dispatcher.runCycle();
    expect(dead.received).toHaveLength(1);
    await h.publish(...Array.from({ length: 40 }, () => ({ courseId: deadCourse })), ...Array.from({ length: 5 }, () => ({ courseId: liveCourse })));
    // The most leases to the hung host seen at once, sampled while waiting.
    const leasedToDead = leaseSampler(h, deadHook);

    const cycle = h.module.dispatcher.runCycle();
    await waitFor('the first attempts', async () => (await leasedToDead.now()) >= 0 && live.received.length === 5 && dead.received.length === 5);
    await h.publish(...Array.from({ length: 5 }, () => ({ courseId: liveCourse })));
    await waitFor('the live host to receive the later ones', async () => (await leasedToDead.now()) >= 0 && live.received.length === 10, 5000);
    await waitFor('the leases waiting for the hung host to be handed back', async () => (await leasedToDead.now()) === 4, 5000);
    // Claimed ahead while the host was not yet known to be slow (its 4 attempts and some of the 36 behind them).
    expect(leasedToDead.most).toBeGreaterThan(4);
    expect(dead.received).toHaveLength(5);
    await h.module.dispatcher.stop();
    await cycle;
  });

  it('leases a host it has not yet seen answer no more than its slots', async () => {
    // A new subscriber that never answers would otherwise hold a queue of leases the others could use for
    // the second it takes to count as slow.
    const { h, dead, live, deadCourse, deadHook, liveCourse } = await hungAndLiveHosts();
    await h.publish(...Array.from({ length: 40 }, () => ({ courseId: deadCourse })), ...Array.from({ length: 5 }, () => ({ courseId: liveCourse })));
    // The most leases to the hung host seen at once, sampled from the start (once it counts as slow, a
    // queue would be handed back anyway, so a single late look could miss one).
    const leasedToDead = leaseSampler(h, deadHook);
    const cycle = h.module.dispatcher.runCycle();
    await waitFor('the first attempts', async () => (await leasedToDead.now()) >= 0 && live.received.length === 5 && dead.received.length === 4);
    await h.publish(...Array.from({ length: 5 }, () => ({ courseId: liveCourse })));
    await waitFor('the live host to receive the later ones', async () => (await leasedToDead.now()) >= 0 && live.received.length === 10, 5000);
    expect(leasedToDead.most).toBe(4);
    expect(dead.received).toHaveLength(4);
    await h.module.dispatcher.stop();
    await cycle;
  });

  it('keeps delivering to a live host while hosts that stopped answering hold every one of the process\'s slots', async () => {
    // Two hosts that answered once and then stop, at their limit of 2, take all 4 of the process's slots
    // until they count as slow.
    const h = await harness({ concurrency: 4, hostConcurrency: 2, timeoutMs: 20_000, drainTimeoutMs: 100 });
    const deadHosts = [await receiver((_, index) => (index === 0 ? { status: 204 } : 'hang')), await receiver((_, index) => (index === 0 ? { status: 204 } : 'hang'))];
    const live = await receiver();
    const deadCourse = randomUUID();
    const liveCourse = randomUUID();
    for (const dead of deadHosts) await webhook(h, randomUUID(), { url: dead.url, filterScope: 'course', filterCourseId: deadCourse });
    await webhook(h, randomUUID(), { url: live.url, filterScope: 'course', filterCourseId: liveCourse });
    await h.publish({ courseId: deadCourse }, { courseId: liveCourse });
    await h.module.dispatcher.runCycle();
    expect(Number((await h.knex('deliveries').where({ status: 'delivered' }).count({ n: '*' }).first())?.n)).toBe(3);

    await h.publish(...Array.from({ length: 2 }, () => ({ courseId: deadCourse })));
    const cycle = h.module.dispatcher.runCycle();
    await waitFor('the four hung attempts', () => deadHosts.every((dead) => dead.received.length === 3));
    await h.publish(...Array.from({ length: 3 }, () => ({ courseId: liveCourse })));
    void h.module.dispatcher.runCycle();
    // Delivered once the hung hosts count as slow (a second), not when their attempts time out after 20 s.
    await waitFor('the live host to receive its three', () => live.received.length === 4, 5000);
    expect(deadHosts.map((dead) => dead.received.length)).toEqual([3, 3]);
    await h.module.dispatcher.stop();
    await cycle;
  });

  it('never has more than DELIVERY_HOST_CONCURRENCY attempts open to one host, whoever owns the webhooks', async () => {
    const h = await harness({ hostConcurrency: 3 });
    const shared = await receiver(() => ({ status: 200, delayMs: 100 }));
    const elsewhere = await receiver(() => ({ status: 200, delayMs: 100 }));
    for (const owner of [randomUUID(), randomUUID(), randomUUID()]) {
      await webhook(h, owner, { url: shared.url });
      await webhook(h, owner, { url: `${shared.url}?copy` });
    }
    await webhook(h, randomUUID(), { url: elsewhere.url });
    await h.publish(...Array.from({ length: 6 }, () => ({})));

    await h.module.dispatcher.runCycle();
    expect(shared.received).toHaveLength(36);
    expect(elsewhere.received).toHaveLength(6);
    expect(shared.maxConcurrentRequests).toBe(3);
    expect(shared.maxOpenConnections).toBeLessThanOrEqual(3);
    expect(elsewhere.maxConcurrentRequests).toBe(3);
  });

  it('holds the per-host limit across dispatcher replicas, which read the load from each other\'s leases', async () => {
    const h = await harness({ hostConcurrency: 3 });
    const second = await h.replica();
    const host = await receiver(() => ({ status: 200, delayMs: 150 }));
    for (const owner of [randomUUID(), randomUUID()]) await webhook(h, owner, { url: host.url });
    await h.publish(...Array.from({ length: 12 }, () => ({})));

    await Promise.all([h.module.dispatcher.runCycle(), second.dispatcher.runCycle(), h.module.dispatcher.runCycle()]);
    await waitFor('all 24 deliveries', () => host.received.length === 24);
    expect(host.maxConcurrentRequests).toBe(3);
    expect(host.maxOpenConnections).toBeLessThanOrEqual(6);
    const delivered = await h.knex('deliveries').where({ status: 'delivered' }).count({ n: '*' }).first();
    expect(Number(delivered?.n)).toBe(24);
  });
});
