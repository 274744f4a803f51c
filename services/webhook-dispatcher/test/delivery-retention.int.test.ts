import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/webhook-harness.js';
import { startReceiver, type TestReceiver } from './support/test-receiver.js';

/** Deliveries older than DELIVERY_RETENTION_DAYS are deleted by the periodic job; newer ones are kept. */
const owner = randomUUID();
const DAY = 86_400;
let h: Harness;
let target: TestReceiver;

beforeAll(async () => {
  h = await startHarness({ retentionDays: 7 });
  target = await startReceiver((request) => (request.body.data.entityId === 'fails' ? { status: 500 } : { status: 200 }));
});
afterAll(async () => {
  await target.close();
  await h.close();
});

async function count(table: string, where: Record<string, unknown> = {}): Promise<number> {
  const row = await h.knex(table).where(where).count({ n: '*' }).first();
  return Number(row?.n);
}

describe('delivery retention (DELIVERY_RETENTION_DAYS)', () => {
  it('deletes finished deliveries older than the retention and what only they kept, and keeps everything newer', async () => {
    const hook = (await h.call(owner, 'POST', '/webhooks', { url: target.url })).body.data.id as string;
    const gone = (await h.call(owner, 'POST', '/webhooks', { url: target.url })).body.data.id as string;
    const [oldChange] = await h.publish({ entityId: 'delivered-long-ago' });
    await h.publish({ entityId: 'fails' });
    await h.module.dispatcher.runCycle();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      h.clock.advance(900);
      await h.module.dispatcher.runCycle();
    }
    await h.call(owner, 'DELETE', `/webhooks/${gone}`);
    // A pending delivery of that age (kept however old), then eight days later some new traffic.
    await h.knex('deliveries').insert({
      id: randomUUID(), webhook_id: hook, change_id: null, message_id: 'test-1', event_type: 'test.created', status: 'pending', attempts: 0,
      next_retry_at: new Date('2030-01-01T00:00:00Z'), created_at: h.clock.now(), origin: 'test',
    });
    h.clock.advance(8 * DAY);
    const [newChange] = await h.publish({ entityId: 'recent' });
    await h.module.dispatcher.runCycle();
    expect(await count('deliveries', { status: 'delivered' })).toBe(3);
    expect(await count('deliveries', { status: 'failed' })).toBe(2);

    const result = await h.module.retention.runOnce();

    expect(result).toEqual({ deliveries: 4, changes: 2, webhooks: 1 });
    const left: { change_id: string | null; status: string; webhook_id: string }[] = await h.knex('deliveries').select('change_id', 'status', 'webhook_id');
    expect(left.map((row) => [row.change_id, row.status]).sort()).toEqual([
      [newChange!.id, 'delivered'], [null, 'pending'],
    ].sort());
    expect(await count('matched_changes', { id: oldChange!.id })).toBe(0);
    expect(await count('matched_changes', { id: newChange!.id })).toBe(1);
    expect(await count('webhooks', { id: gone })).toBe(0);
    expect(await count('webhooks', { id: hook })).toBe(1);
  });

  it('deletes nothing younger than the retention', async () => {
    h.clock.advance(DAY);
    expect(await h.module.retention.runOnce()).toEqual({ deliveries: 0, changes: 0, webhooks: 0 });
  });

  it('runs by itself: a dispatcher that starts deletes what has expired, without being asked', async () => {
    const hook = (await h.call(owner, 'POST', '/webhooks', { url: target.url })).body.data.id as string;
    const expired = randomUUID();
    await h.knex('deliveries').insert({
      id: expired, webhook_id: hook, change_id: null, message_id: 'test-expired', event_type: 'test.created', status: 'delivered', attempts: 1,
      next_retry_at: null, created_at: new Date(h.clock.now().getTime() - 8 * DAY * 1000), origin: 'test',
    });
    const replica = await h.replica();
    await replica.start();
    try {
      await expect.poll(() => count('deliveries', { id: expired }), { timeout: 10_000 }).toBe(0);
    } finally {
      await replica.stop();
    }
  });
});
