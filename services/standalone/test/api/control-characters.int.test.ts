import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { allApiRoutes, toleratesControlCharacters, type ApiRoute } from '@timetable/contracts';
import { ApiClient, expectError, uniqueEmail, type ApiResponse, type Developer } from './support/api-client.js';
import { findKnownIds, type KnownIds } from './support/known-ids.js';
import { startTarget, type Target } from './support/target.js';

/**
 * Control characters (C0, DEL, C1) in the query of every documented GET, derived from the route contract:
 * never a 5xx; 400 VALIDATION_ERROR naming the parameter, except where the contract marks the parameter as
 * answering a malformed value its own way (the id lists match nothing, /changes since answers 200).
 */
const CONTROLS = ['\u0000', '\u0001', '\t', '\n', '\r', '\u001f', '\u007f', '\u0080', '\u009f'];
const REFUSAL = 'must not contain control characters';
const gets = allApiRoutes.filter((route) => route.method === 'get');

let target: Target;
let client: ApiClient;
let known: KnownIds;
let developer: Developer;
let webhookId: string;

beforeAll(async () => {
  target = await startTarget();
  client = new ApiClient(target.baseUrl);
  known = await findKnownIds(client);
  developer = await client.registerDeveloper();
  const created = await client.post('/webhooks', { apiKey: developer.apiKey, json: { url: 'https://hooks.example.edu/control' } });
  expect(created.status, created.text).toBe(201);
  webhookId = created.body.data.id as string;
});

afterAll(() => target?.stop());

/** A real value for each path parameter, so a probe reaches the query; a new kind of route fails here. */
function pathValue(route: ApiRoute, name: string): string {
  if (name === 'week') return '2026-W12';
  if (name === 'semesterId') return known.semesterId;
  const byArea: Record<string, string> = {
    programs: known.programId,
    semesters: known.semesterId,
    courses: known.occurrence.course.id,
    rooms: known.occurrence.room.id,
    instructors: known.instructorId,
    changes: known.changeId,
    webhooks: webhookId,
  };
  const value = byArea[route.path.split('/')[1] ?? ''];
  if (name !== 'id' || value === undefined) throw new Error(`no value for {${name}} of GET ${route.path}: add one`);
  return value;
}

/** What a route needs in its query to answer 2xx at all. */
function baseQuery(route: ApiRoute): Record<string, string> {
  if (route.path === '/rooms/free') return { from: '2026-03-25T12:00:00Z', to: '2026-03-25T13:00:00Z' };
  if (route.path === '/ical') return { courseIds: known.occurrence.course.id };
  return {};
}

function get(route: ApiRoute, query: Record<string, string>, path?: Record<string, string>): Promise<ApiResponse> {
  const concrete = route.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(path?.[name] ?? pathValue(route, name)));
  const search = new URLSearchParams(query).toString();
  return client.get(`${concrete}${search ? `?${search}` : ''}`, route.auth ? { apiKey: developer.apiKey } : {});
}

function expectRefused(response: ApiResponse, name: string): void {
  expectError(response, 400, 'VALIDATION_ERROR', `Query validation failed: ${name}: ${REFUSAL}`);
  expect(response.body.error.details).toEqual({ issues: [{ path: name, message: REFUSAL }] });
}

describe.each(gets.map((route) => [route.path, route] as const))('GET %s', (_path, route) => {
  const names = Object.keys((route.query as z.ZodObject | undefined)?.shape ?? {});

  it('answers 2xx to its base request, so each probe below tests one parameter', async () => {
    const response = await get(route, baseQuery(route));
    expect(response.status, response.text).toBeGreaterThanOrEqual(200);
    expect(response.status, response.text).toBeLessThan(300);
  });

  it.each(names)('refuses control characters in %s, or treats them as the malformed value the contract says', async (name) => {
    const tolerant = toleratesControlCharacters(route.query!.shape[name] as z.ZodType);
    for (const control of CONTROLS) {
      const query = { ...baseQuery(route), [name]: `${baseQuery(route)[name] ?? 'a'}${control}b` };
      const response = await get(route, query);
      if (tolerant) expect(response.status, `${JSON.stringify(control)}: ${response.text}`).toBe(200);
      else expectRefused(response, name);
    }
  });

  it('refuses a NUL in a parameter it does not document', async () => {
    expectRefused(await get(route, { ...baseQuery(route), undocumented: 'x\u0000' }), 'undocumented');
  });

});

const withPathParameters = gets.filter((route) => route.path.includes('{'));

describe.each(withPathParameters.map((route) => [route.path, route] as const))('GET %s', (_path, route) => {
  it('answers a control character in a path parameter with 400 or 404, never a 5xx', async () => {
    for (const name of [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!)) {
      for (const control of ['\u0000', '\n', '\u007f']) {
        const response = await get(route, baseQuery(route), { [name]: `x${control}y` });
        expect([400, 404], `${name} ${JSON.stringify(control)}: ${response.text}`).toContain(response.status);
      }
    }
  });
});

describe('control characters in body strings', () => {
  it('are refused in register, naming the field, even one the body does not take, and create no account', async () => {
    const email = uniqueEmail('control');
    for (const control of ['\u0000', '\n', '\u0085']) {
      const response = await client.post('/developers/register', { json: { email, name: `Team${control}` } });
      expectError(response, 400, 'VALIDATION_ERROR', `Body validation failed: name: ${REFUSAL}`);
    }
    const extra = await client.post('/developers/register', { json: { email, note: 'x\u0000' } });
    expectError(extra, 400, 'VALIDATION_ERROR', `Body validation failed: note: ${REFUSAL}`);
    expect((await client.post('/developers/register', { json: { email, name: 'Team' } })).status).toBe(201);
  });

  it('are refused in webhook bodies, naming the field', async () => {
    const create = await client.post('/webhooks', { apiKey: developer.apiKey, json: { url: 'https://hooks.example.edu/a\u0000' } });
    expectError(create, 400, 'VALIDATION_ERROR', `Body validation failed: url: ${REFUSAL}`);
    const recover = await client.post(`/webhooks/${webhookId}/recover`, { apiKey: developer.apiKey, json: { since: '2026-03-25T12:00:00Z\u0000' } });
    expectError(recover, 400, 'VALIDATION_ERROR', `Body validation failed: since: ${REFUSAL}`);
  });
});

describe('deep and oversized JSON bodies', () => {
  it('answers a body nested deeper than 32 levels with 400, however deep, and one over 64 kB with 400 too', async () => {
    for (const depth of [33, 30_000]) {
      const rawBody = `{"email":"deep@example.edu","x":${'['.repeat(depth)}${']'.repeat(depth)}}`;
      const response = await client.post('/developers/register', { rawBody });
      expectError(response, 400, 'VALIDATION_ERROR', 'Body validation failed: the JSON nests deeper than 32 levels');
    }
    const large = await client.post('/webhooks', { apiKey: developer.apiKey, json: { url: `https://hooks.example.edu/${'x'.repeat(70_000)}` } });
    expectError(large, 400, 'VALIDATION_ERROR', 'Body validation failed: the body exceeds 65536 bytes');
  });
});
