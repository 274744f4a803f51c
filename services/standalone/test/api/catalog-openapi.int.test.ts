import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, expectError } from './support/api-client.js';
import { findKnownIds, type KnownIds, type KnownOccurrence as Occurrence } from './support/known-ids.js';
import { startTarget, type Target } from './support/target.js';

const INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const DAY_MS = 86_400_000;

let target: Target;
let client: ApiClient;
let known: KnownIds;

beforeAll(async () => {
  target = await startTarget();
  client = new ApiClient(target.baseUrl);
  known = await findKnownIds(client);
});

afterAll(() => target?.stop());

function expectOccurrence(entry: unknown): void {
  expect(entry).toMatchObject({
    id: expect.any(String),
    summary: expect.any(String),
    startTime: expect.stringMatching(INSTANT),
    endTime: expect.stringMatching(INSTANT),
    weekday: expect.any(Number),
    excludedDates: expect.any(Array),
    course: { id: expect.any(String), name: expect.any(String), code: expect.any(String) },
    room: { id: expect.any(String), name: expect.any(String), building: expect.any(String) },
    semester: { id: expect.any(String), name: expect.any(String), program: { id: expect.any(String), name: expect.any(String) } },
  });
}

describe('catalog reads through the gateway answer in the documented shapes', () => {
  it('lists programs and returns one program by id', async () => {
    const list = await client.get('/programs');
    expect(list.status).toBe(200);
    const program = (list.body.data as { id: string }[]).find((entry) => entry.id === known.programId);
    expect(program).toMatchObject({ name: expect.any(String), shortName: expect.any(String), degreeType: expect.any(String), isActive: true });
    expect((await client.get(`/programs/${known.programId}`)).body).toEqual({ data: program });
  });

  it('filters semesters by programId and nests the program', async () => {
    const response = await client.get(`/semesters?programId=${known.programId}`);
    expect(response.status).toBe(200);
    expect(response.body.data.length).toBeGreaterThan(0);
    for (const semester of response.body.data) {
      expect(semester).toMatchObject({ programId: known.programId, program: { id: known.programId, name: expect.any(String), shortName: expect.any(String) } });
    }
  });

  it('lists the events of a semester, one entry each', async () => {
    const response = await client.get(`/semesters/${known.semesterId}/courses`);
    expect(response.status).toBe(200);
    const entries = response.body.data as Occurrence[];
    expect(entries.length).toBeGreaterThan(0);
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(entries.length);
    expectOccurrence(entries[0]);
  });

  it('returns a room schedule for the default window of now to now + 180 days', async () => {
    const roomId = known.occurrence.room.id;
    const response = await client.get(`/rooms/${roomId}/schedule`);
    expect(response.status).toBe(200);
    const { room, period, courses } = response.body.data;
    expect(room.id).toBe(roomId);
    expect(Math.abs(Date.parse(period.from) - Date.now())).toBeLessThan(60_000);
    expect(Date.parse(period.to) - Date.parse(period.from)).toBe(180 * DAY_MS);
    for (const entry of courses) expect(Object.keys(entry).sort()).toEqual(['endTime', 'id', 'startTime', 'summary', 'weekday']);
  });

  it('returns an instructor with their occurrences, not double-wrapped', async () => {
    const response = await client.get(`/instructors/${known.instructorId}/courses`);
    expect(response.status).toBe(200);
    expect(response.body.instructor).toMatchObject({ id: known.instructorId, name: expect.any(String), email: expect.any(String) });
    expect(Array.isArray(response.body.data)).toBe(true);
    expect(response.body.data.length).toBeGreaterThan(0);
    expectOccurrence(response.body.data[0]);
  });

  it('searches all four kinds, one kind with type, and nothing below two characters', async () => {
    const all = await client.get('/search?q=ma');
    expect(all.status).toBe(200);
    expect(Object.keys(all.body.data).sort()).toEqual(['courses', 'instructors', 'programs', 'rooms']);
    for (const bucket of Object.values(all.body.data) as unknown[][]) expect(bucket.length).toBeLessThanOrEqual(20);
    expect((await client.get('/search?q=m')).body.data).toEqual({ courses: [], rooms: [], instructors: [], programs: [] });
    const rooms = (await client.get('/search?q=a&type=room')).body.data;
    expect(rooms).toMatchObject({ courses: [], instructors: [], programs: [] });
  });

  it('counts the catalog in /statistics', async () => {
    const response = await client.get('/statistics');
    expect(response.status).toBe(200);
    const keys = ['courses', 'events', 'instructors', 'programs', 'rooms', 'semesters'];
    expect(Object.keys(response.body.data).sort()).toEqual(keys);
    for (const key of keys) expect(Number.isInteger(response.body.data[key])).toBe(true);
    expect(response.body.data.events).toBeGreaterThan(0);
  });

  it('answers /week/current with the week label, its date range and occurrences, unwrapped', async () => {
    const response = await client.get('/week/current');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ week: expect.stringMatching(/^\d{4}-W\d\d$/), dateRange: { start: expect.any(String), end: expect.any(String) }, occurrences: expect.any(Array) });
    const { start, end } = response.body.dateRange;
    expect(end).toMatch(/:59:59\.999Z$/);
    expect(end).toMatch(/:59:59\.999Z$/);
    expect(Date.parse(end) - Date.parse(start)).toBeGreaterThanOrEqual(7 * DAY_MS - 3_600_001);
    expect(Date.parse(start)).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(end)).toBeGreaterThanOrEqual(Date.now());
  });

  it('serves /ical/:semesterId as a cacheable calendar with an ETag honoured by If-None-Match', async () => {
    const response = await client.get(`/ical/${known.semesterId}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('public, max-age=600');
    expect(response.text).toMatch(/^BEGIN:VCALENDAR\r\n/);
    expect(response.text).toContain('VERSION:2.0');
    expect(response.text).toContain('BEGIN:VEVENT');
    expect(response.text).not.toContain('RRULE');
    const etag = response.headers.get('etag');
    expect(etag).toBeTruthy();
    const notModified = await client.get(`/ical/${known.semesterId}`, { headers: { 'If-None-Match': etag! } });
    expect(notModified.status).toBe(304);
    expect(notModified.text).toBe('');
    expectError(await client.get(`/ical/${randomUUID()}`), 404, 'NOT_FOUND');
  });

  it('reports the sync status and the upstream calendar URL of a semester', async () => {
    const status = await client.get('/sync/status');
    expect(status.status).toBe(200);
    expect(Object.keys(status.body.data).sort()).toEqual(['baseUrl', 'currentPu', 'lastError', 'lastFetchedAt']);
    expect(status.body.data).toMatchObject({ lastFetchedAt: expect.stringMatching(INSTANT), currentPu: expect.anything(), baseUrl: expect.any(String) });
    const { lastError } = status.body.data;
    if (lastError !== null) expect(Object.keys(lastError).sort()).toEqual(['errorMessage', 'programId', 'semesterId', 'updatedAt']);
    const url = await client.get(`/ical/${known.semesterId}/url`);
    expect(url.status).toBe(200);
    expect(url.body).toEqual({ url: expect.stringMatching(/^https?:\/\//), splanProgramId: expect.any(String), splanSemesterId: expect.any(String) });
    expectError(await client.get(`/ical/${randomUUID()}/url`), 404, 'NOT_FOUND');
  });
});

describe('GET /v1/timetable/openapi.json documents every route with the statuses it answers', () => {
  interface Operation {
    responses: Record<string, unknown>;
    security?: unknown[];
  }
  interface PathItem {
    servers?: { url: string }[];
    get?: Operation;
  }

  /** Real values for path parameters, by the path they appear in. */
  function substitute(path: string, webhookId: string): string {
    const firstSegment = path.split('/')[1];
    const ids: Record<string, string> = {
      programs: known.programId,
      semesters: known.semesterId,
      courses: known.occurrence.course.id,
      rooms: known.occurrence.room.id,
      instructors: known.instructorId,
      ical: known.semesterId,
      changes: known.changeId,
      webhooks: webhookId,
      week: '2026-W10',
    };
    return path.replace(/\{[^}]+\}/g, () => ids[firstSegment ?? ''] ?? 'unknown');
  }

  /** A valid query for the routes that require one. */
  function requiredQuery(path: string): string {
    const from = new Date();
    const queries: Record<string, string> = {
      '/ical': `?groupIds=${known.semesterId}`,
      '/rooms/free': `?from=${from.toISOString()}&to=${new Date(from.getTime() + 3_600_000).toISOString()}`,
    };
    return queries[path] ?? '';
  }

  it('is an OpenAPI 3.1 document whose GET routes all answer a documented status', async () => {
    const response = await client.get('/openapi.json');
    expect(response.status).toBe(200);
    const document = response.body as { openapi: string; servers: { url: string }[]; paths: Record<string, PathItem> };
    expect(document.openapi).toMatch(/^3\.1\./);
    const developer = await client.registerDeveloper();
    const webhook = await client.post('/webhooks', { apiKey: developer.apiKey, json: { url: 'http://receiver.internal:9/hooks' } });
    expect(webhook.status).toBe(201);

    const checked: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      if (!item.get) continue;
      const server = (item.servers ?? document.servers)[0]!.url.replace(/\/$/, '');
      const apiKey = item.get.security ? developer.apiKey : undefined;
      const answer = await client.root('GET', `${server}${substitute(path, webhook.body.data.id)}${requiredQuery(path)}`, { apiKey });
      expect(Object.keys(item.get.responses), `${answer.status} for GET ${path}: ${answer.text.slice(0, 200)}`).toContain(String(answer.status));
      expect(answer.status, `GET ${path}`).toBeLessThan(400);
      checked.push(path);
    }
    expect(checked).toEqual(
      expect.arrayContaining(['/programs', '/programs/{id}', '/week/{week}', '/ical', '/ical/{semesterId}', '/rooms/free', '/changes/{id}', '/webhooks/{id}', '/health']),
    );
  });
});
