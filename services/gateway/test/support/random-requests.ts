import fc from 'fast-check';
import { expect } from 'vitest';
import { IDENTITY_HEADER } from '@timetable/http';
import { IDENTITY_SIGNATURE_HEADER } from '@timetable/http/testing';

/** Every status the interface documents, plus 301 (legacy) and 410 (export). */
const DOCUMENTED = new Set([200, 201, 202, 204, 301, 304, 400, 401, 403, 404, 409, 410, 429]);

export interface RandomRequest {
  method: string;
  path: string;
  query: string;
  apiKey: string | undefined;
  forged: boolean;
  extraHeader: string;
  body: string | undefined;
  contentType: string;
}

/** Requests a careless or hostile client might send: odd paths, encodings, queries, keys, headers, bodies. */
export function randomRequest(validKey: string, knownId: string): fc.Arbitrary<RandomRequest> {
  const segment = fc.oneof(
    fc.constantFrom('programs', 'semesters', 'courses', 'rooms', 'free', 'week', 'ical', 'url', 'changes', 'search', 'sync', 'status'),
    fc.constantFrom('developers', 'me', 'usage', 'webhooks', 'deliveries', 'test', 'register', 'export', 'health', knownId),
    fc.string({ maxLength: 12 }).map(encodeURIComponent),
    fc.string({ unit: fc.constantFrom('%', 'a', 'F', '0', '/', '.', '~', '-', 'W'), maxLength: 8 }),
  );
  const path = fc
    .tuple(fc.constantFrom('/v1/timetable', '/api/v1', '/v1/timetable/webhooks', '/v1/timetable/developers', ''), fc.array(segment, { maxLength: 4 }))
    .map(([prefix, segments]) => `${prefix}/${segments.join('/')}`);
  const query = fc
    .array(
      fc.tuple(
        fc.constantFrom('page', 'limit', 'status', 'q', 'since', 'from', 'to', 'semesterId', 'courseIds', 'roomIds', 'building', 'minCapacity', 'x'),
        fc.string({ maxLength: 10 }),
      ),
      { maxLength: 4 },
    )
    .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}` : ''));
  const apiKey = fc.option(
    fc.oneof(fc.constant(validKey), fc.string({ maxLength: 40 }), fc.string({ maxLength: 32 }).map((s) => `spk_${s}`)),
    { nil: undefined },
  );
  return fc.record({
    method: fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'HEAD'),
    path,
    query,
    apiKey,
    forged: fc.boolean(),
    extraHeader: fc.string({ unit: fc.constantFrom('a', 'b', '1', '-', ' ', ';', '='), maxLength: 20 }),
    body: fc.option(fc.oneof(fc.json({ maxDepth: 3 }), fc.string({ maxLength: 30 })), { nil: undefined }),
    contentType: fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded'),
  });
}

/** Sends the request and checks: a documented status, never a 5xx, the envelope on every failure. */
export async function expectDocumentedAnswer(origin: string, input: RandomRequest, forgedDeveloperId: string): Promise<void> {
  const headers: Record<string, string> = { 'X-Extra': input.extraHeader };
  if (input.apiKey !== undefined) headers['X-API-Key'] = input.apiKey;
  if (input.forged) Object.assign(headers, { [IDENTITY_HEADER]: forgedDeveloperId, [IDENTITY_SIGNATURE_HEADER]: 'x' });
  const withBody = input.body !== undefined && input.method !== 'GET' && input.method !== 'HEAD';
  if (withBody) headers['content-type'] = input.contentType;
  const response = await fetch(`${origin}${input.path}${input.query}`, {
    method: input.method,
    headers,
    ...(withBody ? { body: input.body } : {}),
    redirect: 'manual',
  });
  const text = await response.text();
  const label = `${response.status} for ${input.method} ${input.path}${input.query}: ${text.slice(0, 300)}`;
  expect(DOCUMENTED.has(response.status), label).toBe(true);
  if (response.status >= 300 && response.status !== 304 && input.method !== 'HEAD') {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; details?: unknown }; data?: unknown };
    // The one documented exception: /changes with an unparseable since answers {data: [], error: '...'}.
    if (typeof body.error === 'string') return;
    expect(typeof body.error?.code, label).toBe('string');
    expect(typeof body.error?.message, label).toBe('string');
    expect(typeof body.error?.details, label).toBe('object');
  }
}
