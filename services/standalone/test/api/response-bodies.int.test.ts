import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { allApiRoutes, type ApiRoute } from '@timetable/contracts';
import { ApiClient, type ApiResponse, type Developer, type RequestOptions } from './support/api-client.js';
import { findKnownIds, type KnownIds } from './support/known-ids.js';
import { startTarget, type Target } from './support/target.js';

/**
 * Every route of the contract, called for real through the gateway, answers only statuses its contract
 * entry documents, with bodies its response schemas accept and nothing they do not name. A route added to
 * the contract without a call here fails the coverage test, so no route goes unchecked.
 */

const errorEnvelope = z.strictObject({
  error: z.strictObject({ code: z.string().min(1), message: z.string().min(1), details: z.record(z.string(), z.unknown()) }),
});

interface Call {
  /** `<method> <contract path>`, e.g. `get /programs/{id}`. */
  route: string;
  path: string | (() => string);
  options?: RequestOptions | (() => RequestOptions);
}

interface Answer {
  route: ApiRoute;
  label: string;
  response: ApiResponse;
}

let target: Target;
let client: ApiClient;
let known: KnownIds;
const answers: Answer[] = [];

const routeKey = (route: ApiRoute) => `${route.method} ${route.path}`;
const routesByKey = new Map(allApiRoutes.map((route) => [routeKey(route), route]));

beforeAll(async () => {
  target = await startTarget();
  client = new ApiClient(target.baseUrl);
  known = await findKnownIds(client);
  const developer = await client.registerDeveloper('Contract Check');
  // A second account for the calls that end it or replace its key.
  const leaving = await client.registerDeveloper();
  const state: { webhookId?: string; deliveryId?: string } = {};
  let leavingKey = leaving.apiKey;
  const key = (who: Developer) => ({ apiKey: who.apiKey });
  const webhookPath = (suffix = '') => () => `/webhooks/${state.webhookId}${suffix}`;
  const now = Date.now();
  const window = `from=${new Date(now).toISOString()}&to=${new Date(now + 3_600_000).toISOString()}`;

  // In order: later calls use what earlier ones created.
  const calls: Call[] = [
    { route: 'get /programs', path: '/programs' },
    { route: 'get /programs/{id}', path: `/programs/${known.programId}` },
    { route: 'get /programs/{id}/semesters', path: `/programs/${known.programId}/semesters` },
    { route: 'get /programs/{id}/courses', path: `/programs/${known.programId}/courses` },
    { route: 'get /semesters', path: `/semesters?programId=${known.programId}` },
    { route: 'get /semesters/{id}', path: `/semesters/${known.semesterId}` },
    { route: 'get /semesters/{id}/courses', path: `/semesters/${known.semesterId}/courses` },
    { route: 'get /courses', path: '/courses?search=a' },
    { route: 'get /courses/{id}', path: `/courses/${known.occurrence.course.id}` },
    { route: 'get /rooms', path: '/rooms' },
    { route: 'get /rooms/{id}', path: `/rooms/${known.occurrence.room.id}` },
    { route: 'get /rooms/{id}/schedule', path: `/rooms/${known.occurrence.room.id}/schedule` },
    { route: 'get /rooms/{id}/schedule', path: `/rooms/${known.occurrence.room.id}/schedule?from=yesterday` },
    { route: 'get /rooms/free', path: `/rooms/free?${window}` },
    { route: 'get /rooms/free', path: '/rooms/free?from=2026-03-25T12:00:00Z' },
    { route: 'get /instructors', path: '/instructors' },
    { route: 'get /instructors/{id}', path: `/instructors/${known.instructorId}` },
    { route: 'get /instructors/{id}/courses', path: `/instructors/${known.instructorId}/courses` },
    { route: 'get /search', path: '/search?q=ma' },
    { route: 'get /search', path: '/search?q=ma&type=building' },
    { route: 'get /statistics', path: '/statistics' },
    { route: 'get /week/current', path: `/week/current?groupIds=${known.semesterId}` },
    { route: 'get /week/{week}', path: '/week/2026-W10' },
    { route: 'get /week/{week}', path: '/week/2025-W53' },
    { route: 'get /ical', path: `/ical?groupIds=${known.semesterId}` },
    { route: 'get /ical', path: '/ical' },
    { route: 'get /ical/{semesterId}', path: `/ical/${known.semesterId}` },
    { route: 'get /ical/{semesterId}/url', path: `/ical/${known.semesterId}/url` },
    { route: 'get /sync/status', path: '/sync/status' },
    { route: 'get /changes', path: '/changes?limit=5' },
    { route: 'get /changes', path: '/changes?since=garbage' },
    { route: 'get /changes', path: '/changes?limit=0' },
    { route: 'get /changes/{id}', path: `/changes/${known.changeId}` },
    { route: 'post /developers/register', path: '/developers/register', options: { json: { email: 'not-an-email' } } },
    { route: 'get /developers/me', path: '/developers/me', options: key(developer) },
    { route: 'get /developers/usage', path: '/developers/usage', options: key(developer) },
    { route: 'post /webhooks', path: '/webhooks', options: { ...key(developer), json: { url: 'http://receiver.internal:9/hooks', secret: 'a-secret-of-24-characters' } } },
    { route: 'post /webhooks', path: '/webhooks', options: { ...key(developer), json: { url: 'not a url' } } },
    { route: 'get /webhooks', path: '/webhooks', options: key(developer) },
    { route: 'get /webhooks/{id}', path: webhookPath(), options: key(developer) },
    { route: 'patch /webhooks/{id}', path: webhookPath(), options: { ...key(developer), json: { eventTypes: ['created', 'updated'] } } },
    { route: 'patch /webhooks/{id}', path: webhookPath(), options: { ...key(developer), json: { description: 'not a field' } } },
    { route: 'get /webhooks/{id}', path: webhookPath(), options: key(leaving) },
    { route: 'post /webhooks/{id}/test', path: webhookPath('/test'), options: key(developer) },
    { route: 'get /webhooks/{id}/deliveries', path: webhookPath('/deliveries?limit=5'), options: key(developer) },
    {
      route: 'post /webhooks/{id}/deliveries/{deliveryId}/redeliver',
      path: () => `/webhooks/${state.webhookId}/deliveries/${state.deliveryId}/redeliver`,
      options: key(developer),
    },
    { route: 'post /webhooks/{id}/recover', path: webhookPath('/recover'), options: { ...key(developer), json: { since: new Date(now - 3_600_000).toISOString() } } },
    { route: 'post /webhooks/{id}/recover', path: webhookPath('/recover'), options: { ...key(developer), json: {} } },
    { route: 'delete /webhooks/{id}', path: webhookPath(), options: key(developer) },
    { route: 'post /developers/regenerate-key', path: '/developers/regenerate-key', options: key(leaving) },
    { route: 'post /developers/deactivate', path: '/developers/deactivate', options: () => ({ apiKey: leavingKey }) },
  ];

  for (const call of calls) {
    const route = routesByKey.get(call.route);
    if (!route) throw new Error(`${call.route} is not a route of the contract`);
    const path = typeof call.path === 'function' ? call.path() : call.path;
    const options = typeof call.options === 'function' ? call.options() : call.options;
    const response = await client.api(route.method.toUpperCase(), path, options);
    answers.push({ route, label: `${route.method.toUpperCase()} ${path}`, response });
    if (call.route === 'post /webhooks' && response.status === 201) state.webhookId = response.body.data.id;
    if (call.route === 'post /webhooks/{id}/test') state.deliveryId = await firstDeliveryOf(state.webhookId!, developer);
    if (call.route === 'post /developers/regenerate-key' && response.status === 200) leavingKey = response.body.data.apiKey;
  }
  // The registration that succeeds, last so its answer is the only one revealing a key of an unused account.
  const registered = await client.api('POST', '/developers/register', { json: { email: `contract-${randomUUID()}@example.edu`, name: 'Contract' } });
  answers.push({ route: routesByKey.get('post /developers/register')!, label: 'POST /developers/register', response: registered });
});

afterAll(() => target?.stop());

/** The test delivery is queued at once; its row is what redeliver needs. */
async function firstDeliveryOf(webhookId: string, developer: Developer): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const page = await client.get(`/webhooks/${webhookId}/deliveries`, { apiKey: developer.apiKey });
    const [delivery] = (page.body?.data ?? []) as { id: string }[];
    if (delivery) return delivery.id;
    if (Date.now() > deadline) throw new Error(`no delivery listed for webhook ${webhookId}: ${page.text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The status is documented; the body is the documented one, with no field the schema does not name. */
function expectDocumented({ route, label, response }: Answer): void {
  const spec = route.responses[response.status];
  expect(spec, `${label} answered ${response.status}, which its contract does not document: ${response.text.slice(0, 300)}`).toBeDefined();
  if (response.status >= 400) {
    expect(errorEnvelope.safeParse(response.body).error?.issues, `${label}: ${response.text}`).toBeUndefined();
    return;
  }
  if (!spec?.schema) {
    expect(response.text, label).toBe('');
    return;
  }
  if (spec.contentType && spec.contentType !== 'application/json') {
    expect(response.headers.get('content-type'), label).toMatch(new RegExp(`^${spec.contentType}`));
    expect(spec.schema.safeParse(response.text).success, label).toBe(true);
    return;
  }
  expect(response.headers.get('content-type'), label).toMatch(/^application\/json/);
  const parsed = spec.schema.safeParse(response.body);
  expect(parsed.error?.issues, `${label}: ${response.text.slice(0, 300)}`).toBeUndefined();
  // Parsing drops what the schema does not name: an undocumented field makes the two differ.
  expect(parsed.data, label).toEqual(response.body);
}

describe('every route answers as its contract entry documents', () => {
  it('calls every route of the contract, each at least once with a 2xx answer', () => {
    const succeeded = new Set(answers.filter(({ response }) => response.status < 300).map(({ route }) => routeKey(route)));
    expect([...succeeded].sort()).toEqual(allApiRoutes.map(routeKey).sort());
  });

  it('answers documented statuses with bodies that match their schemas exactly', () => {
    for (const answer of answers) expectDocumented(answer);
  });

  it('answers every route with a path parameter and an unknown id with a documented status and the envelope', async () => {
    const developer = await client.registerDeveloper();
    const unknown = randomUUID();
    for (const route of allApiRoutes.filter((entry) => entry.path.includes('{'))) {
      const path = route.path.replace('{week}', '2026-W99').replace(/\{[^}]+\}/g, unknown);
      const body = route.method === 'get' || route.method === 'delete' ? {} : { json: route.body ? { since: new Date().toISOString() } : {} };
      const response = await client.api(route.method.toUpperCase(), path, { ...body, apiKey: route.auth ? developer.apiKey : undefined });
      expect(response.status, `${route.method} ${path}`).toBeGreaterThanOrEqual(400);
      expectDocumented({ route, label: `${route.method.toUpperCase()} ${path}`, response });
    }
  });

  it('answers every key route without a key with 401 in the envelope', async () => {
    for (const route of allApiRoutes.filter((entry) => entry.auth)) {
      const path = route.path.replace(/\{[^}]+\}/g, randomUUID());
      const response = await client.api(route.method.toUpperCase(), path);
      expect(response.status, `${route.method} ${path}`).toBe(401);
      expectDocumented({ route, label: `${route.method.toUpperCase()} ${path}`, response });
    }
  });
});
