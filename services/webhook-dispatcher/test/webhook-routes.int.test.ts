import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/webhook-harness.js';

let h: Harness;
const alice = randomUUID();
const bob = randomUUID();

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

async function create(owner: string, body: Record<string, unknown> = {}) {
  const response = await h.call(owner, 'POST', '/webhooks', { url: 'http://receiver:8080/hook', ...body });
  expect(response.status).toBe(201);
  return response.body.data as { id: string };
}

describe('POST /webhooks', () => {
  it('creates a webhook with the defaults and never returns the secret', async () => {
    const response = await h.call(alice, 'POST', '/webhooks', { url: 'http://receiver/hook', secret: 's'.repeat(16) });
    expect(response.status).toBe(201);
    expect(response.body.data).toEqual({
      id: expect.any(String), url: 'http://receiver/hook', filterScope: 'global', filterProgramId: null, filterSemesterId: null,
      filterCourseId: null, filterRoomId: null, filterInstructorId: null, eventTypes: ['created', 'updated', 'deleted'],
      isActive: true, hasSecret: true, disabledReason: null, disabledAt: null, createdAt: '2025-03-03T10:00:00.000Z', updatedAt: '2025-03-03T10:00:00.000Z',
    });
    expect(response.text).not.toContain('ssssssssssssssss');
  });

  it('accepts a scoped webhook with its filter id and a subset of event types', async () => {
    const programId = randomUUID();
    const response = await h.call(alice, 'POST', '/webhooks', { url: 'https://hooks.example.edu/x', filterScope: 'program', filterProgramId: programId, eventTypes: ['deleted'] });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ filterScope: 'program', filterProgramId: programId, eventTypes: ['deleted'], hasSecret: false });
  });

  it.each([
    ['a non-URL url', { url: 'not a url' }],
    ['a url without protocol', { url: 'receiver.example.edu/hook' }],
    ['a non-http protocol', { url: 'ftp://receiver/hook' }],
    ['a missing url', {}],
    ['a secret of 15 characters', { url: 'http://receiver', secret: 's'.repeat(15) }],
    ['a secret of 256 characters', { url: 'http://receiver', secret: 's'.repeat(256) }],
    ['an invalid event type', { url: 'http://receiver', eventTypes: ['renamed'] }],
    ['an empty event type list', { url: 'http://receiver', eventTypes: [] }],
    ['an unknown scope', { url: 'http://receiver', filterScope: 'faculty' }],
    ['a malformed filter id', { url: 'http://receiver', filterScope: 'room', filterRoomId: 'r-1' }],
    ['a scope without its filter id', { url: 'http://receiver', filterScope: 'course' }],
    ['an unknown field', { url: 'http://receiver', filterProgramID: randomUUID() }],
  ])('answers 400 VALIDATION_ERROR for %s', async (_name, body) => {
    const response = await h.call(alice, 'POST', '/webhooks', body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.any(String) });
  });

  it('answers 401 without a verified developer', async () => {
    const response = await fetch(`${h.api.url}/v1/timetable/webhooks`, { headers: { 'x-timetable-developer': alice } });
    expect(response.status).toBe(401);
  });
});

describe('owner-only routes', () => {
  it("lists only the caller's webhooks", async () => {
    const own = await create(bob);
    const listed = await h.call(bob, 'GET', '/webhooks');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((webhook: { id: string }) => webhook.id)).toEqual([own.id]);
  });

  it.each([
    ['GET', ''], ['PATCH', ''], ['DELETE', ''], ['GET', '/deliveries'], ['POST', '/test'],
  ])("answers 403 on %s of another developer's webhook%s", async (method, suffix) => {
    const webhook = await create(alice);
    const response = await h.call(bob, method, `/webhooks/${webhook.id}${suffix}`, method === 'PATCH' ? { isActive: false } : undefined);
    expect(response.status).toBe(403);
    expect(response.body.error).toMatchObject({ code: 'FORBIDDEN', message: 'You do not own this webhook' });
  });

  it.each([randomUUID(), 'not-a-uuid'])('answers 404 NOT_FOUND for the unknown id %s', async (id) => {
    const response = await h.call(alice, 'GET', `/webhooks/${id}`);
    expect(response.status).toBe(404);
    expect(response.body.error).toMatchObject({ code: 'NOT_FOUND', message: `webhook with id ${id} not found` });
  });
});

describe('PATCH /webhooks/:id', () => {
  it('updates the given fields, clears the secret with null and keeps the rest', async () => {
    const webhook = await create(alice, { secret: 'x'.repeat(20), eventTypes: ['created'] });
    h.clock.advance(5);
    const response = await h.call(alice, 'PATCH', `/webhooks/${webhook.id}`, { isActive: false, secret: null, eventTypes: ['updated', 'updated'] });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ isActive: false, hasSecret: false, eventTypes: ['updated'], url: 'http://receiver:8080/hook' });
    expect(response.body.data.updatedAt).not.toBe(response.body.data.createdAt);
  });

  it('validates like create', async () => {
    const webhook = await create(alice);
    for (const body of [{ url: 'nope' }, { secret: 'short' }, { eventTypes: ['x'] }, { isActive: 'yes' }, { filterScope: 'semester' }]) {
      expect((await h.call(alice, 'PATCH', `/webhooks/${webhook.id}`, body)).status).toBe(400);
    }
  });
});

describe('DELETE /webhooks/:id', () => {
  it('answers 200 with a message; the webhook is gone and its pending deliveries failed', async () => {
    const webhook = await create(alice);
    expect((await h.call(alice, 'POST', `/webhooks/${webhook.id}/test`)).status).toBe(204);
    const response = await h.call(alice, 'DELETE', `/webhooks/${webhook.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ message: expect.any(String) });
    expect((await h.call(alice, 'GET', `/webhooks/${webhook.id}`)).status).toBe(404);
    expect((await h.call(alice, 'DELETE', `/webhooks/${webhook.id}`)).status).toBe(404);
    const rows = await h.knex('deliveries').where({ webhook_id: webhook.id });
    expect(rows.map((row) => [row.status, row.error_message])).toEqual([['failed', 'Webhook deleted']]);
  });
});

describe('POST /webhooks/:id/test', () => {
  it('answers 204 with an empty body and queues a pending test.created delivery', async () => {
    const webhook = await create(alice, { filterScope: 'room', filterRoomId: randomUUID() });
    const response = await h.call(alice, 'POST', `/webhooks/${webhook.id}/test`);
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    const listed = await h.call(alice, 'GET', `/webhooks/${webhook.id}/deliveries`);
    expect(listed.body.data).toEqual([{
      id: expect.any(String), webhookId: webhook.id, eventType: 'test.created', payload: null, status: 'pending', attempts: 0,
      lastAttemptAt: null, nextRetryAt: h.clock.now().toISOString(), responseCode: null, responseBody: null, errorMessage: null,
      deliveredAt: null, createdAt: h.clock.now().toISOString(),
    }]);
  });
});

describe('GET /webhooks/:id/deliveries', () => {
  it('pages newest first with meta, filters by status and caps the limit at 200', async () => {
    const webhook = await create(alice);
    for (let i = 0; i < 5; i++) {
      h.clock.advance(1);
      await h.call(alice, 'POST', `/webhooks/${webhook.id}/test`);
    }
    const path = `/webhooks/${webhook.id}/deliveries`;
    const first = await h.call(alice, 'GET', `${path}?page=1&limit=2`);
    expect(first.body.meta).toEqual({ total: 5, page: 1, limit: 2, totalPages: 3 });
    const last = await h.call(alice, 'GET', `${path}?page=3&limit=2`);
    expect(last.body.data).toHaveLength(1);
    const all = await h.call(alice, 'GET', path);
    expect(all.body.meta).toEqual({ total: 5, page: 1, limit: 50, totalPages: 1 });
    const createdAt = all.body.data.map((delivery: { createdAt: string }) => delivery.createdAt);
    expect(createdAt).toEqual([...createdAt].sort().reverse());
    expect(last.body.data[0].createdAt).toBe(createdAt[4]);
    expect((await h.call(alice, 'GET', `${path}?limit=500`)).body.meta.limit).toBe(200);
    expect((await h.call(alice, 'GET', `${path}?status=delivered`)).body).toEqual({ data: [], meta: { total: 0, page: 1, limit: 50, totalPages: 0 } });
    expect((await h.call(alice, 'GET', `${path}?status=pending`)).body.meta.total).toBe(5);
  });

  it('reads the first of a repeated parameter, as every route does', async () => {
    const webhook = await create(alice);
    const response = await h.call(alice, 'GET', `/webhooks/${webhook.id}/deliveries?page=2&page=1&limit=5`);
    expect(response.status).toBe(200);
    expect(response.body.meta).toMatchObject({ page: 2, limit: 5 });
  });

  it.each(['status=sent', 'page=0', 'page=1.5', 'limit=abc', 'limit=0', 'page=x&page=1'])('answers 400 for %s', async (query) => {
    const webhook = await create(alice);
    const response = await h.call(alice, 'GET', `/webhooks/${webhook.id}/deliveries?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('audit log and webhook count', () => {
  it('logs created, updated and deleted without the secret or the URL path', async () => {
    const secret = 'audit-secret-value-123';
    const webhook = await create(alice, { url: 'https://hooks.example.edu/token-in-path', secret });
    await h.call(alice, 'PATCH', `/webhooks/${webhook.id}`, { isActive: false });
    await h.call(alice, 'DELETE', `/webhooks/${webhook.id}`);
    const audit = h.lines().filter((line) => String(line.event ?? '').startsWith('audit.timetable.webhook.') && line.webhookId === webhook.id);
    expect(audit.map((line) => line.event)).toEqual(['audit.timetable.webhook.created', 'audit.timetable.webhook.updated', 'audit.timetable.webhook.deleted']);
    expect(audit[0]).toMatchObject({ developerId: alice, urlHost: 'hooks.example.edu', hasSecret: true });
    expect(JSON.stringify(h.lines())).not.toContain(secret);
    expect(JSON.stringify(audit)).not.toContain('token-in-path');
  });

  it('counts the live webhooks of a developer through the port and the internal route', async () => {
    const carol = randomUUID();
    await create(carol);
    const gone = await create(carol);
    await create(carol);
    await h.call(carol, 'DELETE', `/webhooks/${gone.id}`);
    expect(await h.module.webhookCounter.countFor(carol)).toBe(2);
    expect(await h.module.webhookCounter.countFor(randomUUID())).toBe(0);
    const response = await h.call(carol, 'GET', `/internal/developers/${carol}/webhook-count`);
    expect(response).toMatchObject({ status: 200, body: { count: 2 } });
  });
});
