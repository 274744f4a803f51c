import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { topics } from '@timetable/contracts';
import { startHarness, type Harness } from './support/webhook-harness.js';

let h: Harness;
const owner = randomUUID();

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(async () => {
  await h.knex('deliveries').del();
  await h.knex('webhooks').update({ deleted_at: h.clock.now() });
});

async function webhook(body: Record<string, unknown> = {}): Promise<string> {
  const response = await h.call(owner, 'POST', '/webhooks', { url: 'http://receiver/hook', ...body });
  expect(response.status).toBe(201);
  return response.body.data.id as string;
}

async function queued(): Promise<{ webhook_id: string; change_id: string; event_type: string }[]> {
  return h.knex('deliveries').select('webhook_id', 'change_id', 'event_type').orderBy('created_at');
}

describe('scope matching', () => {
  const id = randomUUID();
  it.each([
    ['program', 'filterProgramId', 'programId'],
    ['semester', 'filterSemesterId', 'semesterId'],
    ['course', 'filterCourseId', 'courseId'],
    ['room', 'filterRoomId', 'roomId'],
    ['instructor', 'filterInstructorId', 'instructorId'],
  ] as const)('a %s webhook fires only for changes carrying its id', async (scope, filter, changeField) => {
    const hook = await webhook({ filterScope: scope, [filter]: id });
    const [matching] = await h.publish({ [changeField]: id });
    await h.publish({ [changeField]: randomUUID() }, {});
    expect(await queued()).toEqual([{ webhook_id: hook, change_id: matching!.id, event_type: 'course.updated' }]);
  });

  it('a global webhook fires for any change', async () => {
    const hook = await webhook();
    const changes = await h.publish({ entityType: 'room', action: 'created', previousData: null, changedFields: [] }, { programId: randomUUID() });
    const rows = await queued();
    expect(rows.map((row) => row.change_id).sort()).toEqual(changes.map((c) => c.id).sort());
    expect(rows.every((row) => row.webhook_id === hook)).toBe(true);
    expect(rows.map((row) => row.event_type).sort()).toEqual(['course.updated', 'room.created']);
  });

  it('ignores the filter ids a scope does not consult', async () => {
    await webhook({ filterScope: 'course', filterCourseId: randomUUID(), filterProgramId: id });
    await h.publish({ programId: id });
    expect(await queued()).toEqual([]);
  });
});

describe('eventTypes matching', () => {
  it('queues only the actions a webhook subscribed to', async () => {
    const onlyDeleted = await webhook({ eventTypes: ['deleted'] });
    const createdOrUpdated = await webhook({ eventTypes: ['created', 'updated'] });
    const [created, updated, deleted] = await h.publish({ action: 'created' }, { action: 'updated' }, { action: 'deleted' });
    const pairs = (await queued()).map((row) => `${row.webhook_id}/${row.change_id}`).sort();
    expect(pairs).toEqual([`${onlyDeleted}/${deleted!.id}`, `${createdOrUpdated}/${created!.id}`, `${createdOrUpdated}/${updated!.id}`].sort());
  });
});

describe('idempotency and activity', () => {
  it('a re-delivered change creates nothing new', async () => {
    await webhook();
    const [first] = await h.publish({});
    await h.publish(first!, first!);
    expect(await queued()).toHaveLength(1);
  });

  it('an inactive webhook is skipped at match time and matched again once reactivated', async () => {
    const hook = await webhook();
    await h.call(owner, 'PATCH', `/webhooks/${hook}`, { isActive: false });
    await h.publish({});
    expect(await queued()).toEqual([]);
    await h.call(owner, 'PATCH', `/webhooks/${hook}`, { isActive: true });
    await h.publish({});
    expect(await queued()).toHaveLength(1);
  });

  it('a deleted webhook is never matched', async () => {
    const hook = await webhook();
    await h.call(owner, 'DELETE', `/webhooks/${hook}`);
    await h.publish({});
    expect(await queued()).toEqual([]);
  });

  it('matches a large batch in one statement', async () => {
    for (let i = 0; i < 20; i++) await webhook({ eventTypes: ['updated'] });
    const changes = Array.from({ length: 200 }, () => ({}));
    let statements = 0;
    let batches = 0;
    const count = () => statements++;
    h.knex.on('query', count);
    const probe = h.bus.subscribe({ groupId: `batches-${Date.now()}`, topic: topics.changes, fromBeginning: false, handleBatch: async () => void batches++ });
    await probe.start();
    await h.publish(...changes);
    h.knex.off('query', count);
    await probe.stop();
    // The bus hands the 200 changes over in one batch per partition; each batch is one statement, not 4,000.
    expect(batches).toBeGreaterThan(0);
    expect(statements).toBe(batches);
    expect(await queued()).toHaveLength(4000);
  });
});
