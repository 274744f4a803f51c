import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, expectError } from './support/api-client.js';
import { startTarget, type Target } from './support/target.js';

interface ChangeRecord {
  id: string;
  entityType: string;
  entityId: string;
  action: string;
  programId: string | null;
  createdAt: string;
}

let target: Target;
let client: ApiClient;

beforeAll(async () => {
  target = await startTarget();
  client = new ApiClient(target.baseUrl);
});

afterAll(() => target?.stop());

async function changes(query: string): Promise<ChangeRecord[]> {
  const response = await client.get(`/changes${query}`);
  expect(response.status, response.text).toBe(200);
  expect(response.body).toEqual({ data: expect.any(Array) });
  return response.body.data as ChangeRecord[];
}

function expectNewestFirst(records: ChangeRecord[]): void {
  const times = records.map((record) => Date.parse(record.createdAt));
  expect(times).toEqual([...times].sort((a, b) => b - a));
}

describe('GET /changes lists the change log newest first with a default limit of 100 and a cap of 500', () => {
  it('holds the records created by the first sync, sorted by createdAt descending', async () => {
    const records = await changes('');
    expect(records).toHaveLength(100);
    expectNewestFirst(records);
    expect(records[0]).toMatchObject({ id: expect.any(String), entityType: expect.any(String), entityId: expect.any(String) });
    expect((await changes('?action=created&limit=500')).length).toBeGreaterThan(100);
  });

  it('accepts limit=500 and caps limit=501 at 500 entries', async () => {
    const atMaximum = await changes('?limit=500');
    const aboveMaximum = await changes('?limit=501');
    expect(atMaximum.length).toBeLessThanOrEqual(500);
    expect(aboveMaximum).toHaveLength(atMaximum.length);
    expectNewestFirst(aboveMaximum);
  });

  it('rejects limit=0 and limit=abc with the 400 envelope', async () => {
    expectError(await client.get('/changes?limit=0'), 400);
    expectError(await client.get('/changes?limit=abc'), 400);
  });
});

describe('GET /changes?since selects createdAt >= since and tolerates garbage', () => {
  it('includes records created exactly at since and excludes them one millisecond later', async () => {
    const [newest] = await changes('?limit=1');
    const since = newest!.createdAt;
    const atSince = await changes(`?since=${encodeURIComponent(since)}&limit=500`);
    expect(atSince.some((record) => record.createdAt === since)).toBe(true);
    expect(atSince.every((record) => Date.parse(record.createdAt) >= Date.parse(since))).toBe(true);
    const later = new Date(Date.parse(since) + 1).toISOString();
    expect((await changes(`?since=${encodeURIComponent(later)}`)).some((record) => record.createdAt === since)).toBe(false);
  });

  it('answers an unparseable since with 200 {data: [], error: `Invalid since timestamp`}', async () => {
    const response = await client.get('/changes?since=garbage');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: [], error: 'Invalid since timestamp' });
  });
});

describe('GET /changes filters by entityType, action and programId', () => {
  it('returns only matching records for each filter', async () => {
    const programs = await changes('?entityType=program&limit=500');
    expect(programs.length).toBeGreaterThan(0);
    expect(programs.every((record) => record.entityType === 'program')).toBe(true);

    const created = await changes('?action=created');
    expect(created.length).toBeGreaterThan(0);
    expect(created.every((record) => record.action === 'created')).toBe(true);
    expect((await changes('?action=deleted')).every((record) => record.action === 'deleted')).toBe(true);

    const programId = programs[0]!.programId!;
    const ofProgram = await changes(`?programId=${programId}&limit=500`);
    expect(ofProgram.length).toBeGreaterThan(1);
    expect(ofProgram.every((record) => record.programId === programId)).toBe(true);
    expect(await changes(`?programId=${randomUUID()}`)).toEqual([]);
  });
});

describe('GET /changes/:id returns one record or 404', () => {
  it('returns the record as listed, and 404 NOT_FOUND for unknown and malformed ids', async () => {
    const [record] = await changes('?limit=1');
    const response = await client.get(`/changes/${record!.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: record });
    const unknown = randomUUID();
    expectError(await client.get(`/changes/${unknown}`), 404, 'NOT_FOUND', new RegExp(unknown));
    expectError(await client.get('/changes/not-a-uuid'), 404, 'NOT_FOUND');
  });
});

describe('GET /changes?after=<id> pages the log in append order', () => {
  /** Every change appended after the cursor, page by page, each page at most `limit` long. */
  async function allAfter(cursor: string, limit: number): Promise<string[]> {
    const seen: string[] = [];
    for (;;) {
      const page = await changes(`?after=${cursor}&limit=${limit}`);
      expect(page.length).toBeLessThanOrEqual(limit);
      seen.push(...page.map((record) => record.id));
      if (page.length < limit) return seen;
      cursor = page.at(-1)!.id;
    }
  }

  it('lists what was appended after a change once each, and after the next one exactly the rest', async () => {
    // From the oldest listed: the changes of one sync are appended about in the order they are dated.
    const listed = (await changes('?limit=500')).reverse();
    let cursor: string | undefined;
    for (const record of listed) {
      if ((await changes(`?after=${record.id}&limit=1`)).length > 0) {
        cursor = record.id;
        break;
      }
    }
    expect(cursor).toBeDefined();
    const after = await allAfter(cursor!, 100);
    expect(after.length).toBeGreaterThan(1);
    expect(new Set(after).size).toBe(after.length);
    expect(after).not.toContain(cursor);
    expect(await allAfter(after[0]!, 37)).toEqual(after.slice(1));
  });

  it('refuses a cursor the log does not hold, or a malformed one, with 400 VALIDATION_ERROR', async () => {
    expectError(await client.get(`/changes?after=${randomUUID()}`), 400, 'VALIDATION_ERROR', /after/);
    expectError(await client.get('/changes?after=not-a-uuid'), 400, 'VALIDATION_ERROR', /after/);
  });
});

describe('errors: every failure carries the {error: {code, message, details}} envelope', () => {
  it('answers an unknown route with 404 NOT_FOUND', async () => {
    expectError(await client.get('/no-such-route'), 404, 'NOT_FOUND');
    expectError(await client.root('GET', '/no-such-route'), 404, 'NOT_FOUND');
    expectError(await client.api('DELETE', '/programs'), 404, 'NOT_FOUND');
  });

  it('answers a malformed JSON body with 400', async () => {
    expectError(await client.post('/developers/register', { rawBody: '{"email": ' }), 400);
  });

  it('names the resource kind and the id in a 404 for an unknown id', async () => {
    for (const [path, kind] of [['programs', /program/i], ['semesters', /semester/i], ['courses', /course/i], ['rooms', /room/i], ['instructors', /instructor/i]] as const) {
      const id = randomUUID();
      const response = await client.get(`/${path}/${id}`);
      expectError(response, 404, 'NOT_FOUND', new RegExp(id));
      expect(response.body.error.message, path).toMatch(kind);
    }
  });

  it('treats a malformed id in a path as unknown: 404', async () => {
    for (const path of ['/programs/not-a-uuid', '/semesters/123', '/rooms/x/schedule', '/instructors/x/courses', '/ical/not-a-uuid']) {
      expectError(await client.get(path), 404, 'NOT_FOUND');
    }
  });

  it('rejects week labels that break the pattern or do not exist with 400', async () => {
    for (const week of ['2026-w10', '2026-W54', '2026-W00', '2025-W53', '2026-W1']) {
      expectError(await client.get(`/week/${week}`), 400);
    }
    const valid = await client.get('/week/2026-W10');
    expect(valid.status).toBe(200);
    expect(valid.body.week).toBe('2026-W10');
  });
});

describe('versioning: the retired /api/v1 routes redirect to /v1/timetable or are gone', () => {
  it('redirects /api/v1/<route> with 301 to the absolute public URL, keeping the query', async () => {
    const response = await client.root('GET', '/api/v1/programs?search=x');
    expect(response.status).toBe(301);
    expect(response.headers.get('location')).toBe(`${target.publicBaseUrl}/v1/timetable/programs?search=x`);
    const developers = await client.root('GET', '/api/v1/developers/me');
    expect(developers.status).toBe(301);
    expect(developers.headers.get('location')).toBe(`${target.publicBaseUrl}/v1/timetable/developers/me`);
  });

  it('answers /api/v1/export/* with 410 GONE', async () => {
    expectError(await client.root('GET', '/api/v1/export/x'), 410, 'GONE');
    expectError(await client.root('GET', '/api/v1/export'), 410, 'GONE');
  });

  it('redirects /api/v1/health to the platform /health', async () => {
    const response = await client.root('GET', '/api/v1/health');
    expect(response.status).toBe(301);
    expect(response.headers.get('location')).toBe(`${target.publicBaseUrl}/health`);
    expect((await client.root('GET', '/health')).status).toBe(200);
  });

  it('accepts the same key in the same X-API-Key header under /v1/timetable', async () => {
    const developer = await client.registerDeveloper();
    const me = await client.get('/developers/me', { headers: { 'X-API-Key': developer.apiKey } });
    expect(me.status).toBe(200);
    expect(me.body.data.id).toBe(developer.id);
  });
});
