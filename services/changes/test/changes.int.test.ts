import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topics, type ChangeEvent } from '@timetable/contracts';
import type { Knex } from '@timetable/db';
import { InProcessBus } from '@timetable/events';
import { serveModule, type ServedModule } from '@timetable/service-kit';
import { captureLogger, createMigratedKnex } from '@timetable/testing';
import { CHANGES_SCHEMA, changesMigrations, createChangesService } from '../src/index.js';

const { logger } = captureLogger('warn');
const bus = new InProcessBus(logger);
const programA = randomUUID();
const semesterA = randomUUID();
const courseA = randomUUID();
const roomA = randomUUID();
const instructorA = randomUUID();
let knex: Knex;
let closeDatabase: () => Promise<void>;
let server: ServedModule;

function change(overrides: Partial<ChangeEvent> = {}): ChangeEvent {
  return {
    id: randomUUID(),
    entityType: 'course',
    entityId: randomUUID(),
    action: 'updated',
    previousData: { name: 'Mathematik 1' },
    newData: { name: 'Mathematik 1a' },
    changedFields: ['name'],
    programId: null,
    semesterId: null,
    courseId: null,
    roomId: null,
    instructorId: null,
    createdAt: '2025-01-01T00:00:00.000Z',
    syncRunId: randomUUID(),
    ...overrides,
  };
}

async function publish(changes: ChangeEvent[]): Promise<void> {
  await bus.publish(changes.map((value) => ({ topic: topics.changes.name, key: `${value.entityType}:${value.entityId}`, value })));
}

async function get(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${server.url}/v1/timetable${path}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function ids(path: string): Promise<string[]> {
  const { status, body } = await get(path);
  expect(status).toBe(200);
  return (body.data as { id: string }[]).map((record) => record.id);
}

const base = {
  created: change({ action: 'created', previousData: null, changedFields: [], entityType: 'program', programId: programA, createdAt: '2025-01-01T08:00:00.000Z' }),
  updated: change({ programId: programA, semesterId: semesterA, courseId: courseA, createdAt: '2025-01-02T08:00:00.000Z' }),
  deleted: change({ action: 'deleted', newData: null, changedFields: [], entityType: 'event', roomId: roomA, instructorId: instructorA, semesterId: semesterA, createdAt: '2025-01-03T08:00:00.000Z' }),
};

beforeAll(async () => {
  ({ knex, close: closeDatabase } = await createMigratedKnex(CHANGES_SCHEMA, changesMigrations));
  server = await serveModule(await createChangesService({ knex, bus, logger }), { name: 'changes', logger });
  await publish(Object.values(base));
});

afterAll(async () => {
  await server.close();
  await closeDatabase();
});

describe('consuming timetable.changes.v1', () => {
  it('materialises every field of the change record, roomId and instructorId included', async () => {
    const { status, body } = await get(`/changes/${base.deleted.id}`);
    expect(status).toBe(200);
    const { syncRunId: _syncRunId, ...record } = base.deleted;
    expect(body).toEqual({ data: record });
  });

  it('answers null for absent ids and keeps createdAt in ISO with milliseconds', async () => {
    const { body } = await get(`/changes/${base.created.id}`);
    expect(body.data).toMatchObject({ previousData: null, changedFields: [], semesterId: null, courseId: null, roomId: null, instructorId: null });
    expect((body.data as { createdAt: string }).createdAt).toBe('2025-01-01T08:00:00.000Z');
  });

  it('ignores a redelivered change id and keeps the first version', async () => {
    const first = change({ createdAt: '2024-06-01T00:00:00.000Z' });
    await publish([first]);
    await publish([{ ...first, newData: { name: 'replayed' } }, first]);
    const [row] = await knex('changes').where('id', first.id).select('new_data');
    expect(row).toEqual({ new_data: { name: 'Mathematik 1a' } });
    expect(await knex('changes').where('id', first.id).count({ count: '*' })).toEqual([{ count: 1 }]);
  });
});

describe('GET /changes/:id', () => {
  it('is 404 NOT_FOUND naming the change for an unknown id', async () => {
    const unknown = randomUUID();
    const { status, body } = await get(`/changes/${unknown}`);
    expect(status).toBe(404);
    expect(body).toEqual({ error: { code: 'NOT_FOUND', message: `change with id ${unknown} not found`, details: expect.any(Object) } });
  });

  it('treats a malformed id as unknown', async () => {
    const { status, body } = await get('/changes/not-a-uuid');
    expect(status).toBe(404);
    expect((body.error as { message: string }).message).toBe('change with id not-a-uuid not found');
  });
});

describe('GET /changes filters', () => {
  it('selects createdAt >= since', async () => {
    expect(await ids('/changes?since=2025-01-02T08:00:00.000Z')).toEqual([base.deleted.id, base.updated.id]);
    expect(await ids('/changes?since=2025-01-02T09:00:00%2B01:00')).toEqual([base.deleted.id, base.updated.id]);
  });

  it('answers an unparseable since with 200 {data: [], error} exactly', async () => {
    const { status, body } = await get('/changes?since=last-tuesday');
    expect(status).toBe(200);
    expect(body).toEqual({ data: [], error: 'Invalid since timestamp' });
  });

  it('filters by entityType and action, case-insensitively', async () => {
    expect(await ids('/changes?since=2025-01-01T00:00:00Z&entityType=program')).toEqual([base.created.id]);
    expect(await ids('/changes?since=2025-01-01T00:00:00Z&entityType=EVENT')).toEqual([base.deleted.id]);
    expect(await ids('/changes?since=2025-01-01T00:00:00Z&action=deleted')).toEqual([base.deleted.id]);
    expect(await ids('/changes?since=2025-01-01T00:00:00Z&action=created&entityType=course')).toEqual([]);
  });

  it('treats LIKE wildcards in a text filter as literal characters', async () => {
    expect(await ids('/changes?since=2025-01-01T00:00:00Z&entityType=%25')).toEqual([]);
    expect(await ids('/changes?since=2025-01-01T00:00:00Z&entityType=_vent')).toEqual([]);
  });

  it('filters by programId, semesterId and courseId exactly', async () => {
    expect(await ids(`/changes?programId=${programA}`)).toEqual([base.updated.id, base.created.id]);
    expect(await ids(`/changes?semesterId=${semesterA}`)).toEqual([base.deleted.id, base.updated.id]);
    expect(await ids(`/changes?courseId=${courseA}`)).toEqual([base.updated.id]);
    expect(await ids(`/changes?programId=${programA}&semesterId=${semesterA}`)).toEqual([base.updated.id]);
    expect(await ids(`/changes?courseId=${randomUUID()}`)).toEqual([]);
  });

  it('a malformed id filter matches nothing (200, empty), never 400', async () => {
    for (const name of ['programId', 'semesterId', 'courseId']) {
      const { status, body } = await get(`/changes?${name}=42`);
      expect(status).toBe(200);
      expect(body).toEqual({ data: [] });
    }
  });
});

describe('GET /changes order and limit', () => {
  it('sorts by createdAt descending, ties broken by id descending', async () => {
    const at = '2025-02-01T00:00:00.000Z';
    const tied = [change({ createdAt: at }), change({ createdAt: at }), change({ createdAt: at })];
    const later = change({ createdAt: '2025-02-01T00:00:00.001Z' });
    await publish([...tied, later]);
    const expected = [later.id, ...tied.map((record) => record.id).sort().reverse()];
    expect(await ids(`/changes?since=${at}`)).toEqual(expected);
  });

  it('defaults to 100 and caps larger limits at 500', async () => {
    const many = Array.from({ length: 520 }, (_, index) =>
      change({ entityType: 'room', createdAt: new Date(Date.UTC(2025, 3, 1) + index * 1000).toISOString() }),
    );
    await publish(many);
    expect(await ids('/changes?entityType=room')).toHaveLength(100);
    expect(await ids('/changes?entityType=room&limit=501')).toHaveLength(500);
    expect(await ids('/changes?entityType=room&limit=2')).toEqual([many[519]?.id, many[518]?.id]);
  });

  it.each(['0', '-5', '2.5', 'many'])('rejects limit=%s with 400 VALIDATION_ERROR', async (limit) => {
    const { status, body } = await get(`/changes?limit=${limit}`);
    expect(status).toBe(400);
    expect(body).toEqual({ error: { code: 'VALIDATION_ERROR', message: expect.any(String), details: expect.any(Object) } });
  });
});
