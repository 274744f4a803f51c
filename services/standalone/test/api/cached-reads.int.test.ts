import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, type ApiResponse } from './support/api-client.js';
import { findKnownIds, type KnownIds } from './support/known-ids.js';
import { startTarget, type Target } from './support/target.js';

/**
 * A repeated anonymous GET of a rendered catalog response is answered by the gateway's cached-read path in
 * front of Express (docs/performance.md). Its answer must be indistinguishable from the Express path's: the
 * first request of a URL never seen before takes the Express path (nothing is stored under that URL yet), the
 * second one takes the cached-read path, and the two answers agree in status, headers and body.
 */

/** Differ between any two answers by design: per request, per moment, or counted down per request. */
const PER_REQUEST_HEADERS = new Set(['date', 'x-request-id', 'ratelimit-remaining', 'ratelimit-reset']);

let target: Target;
let client: ApiClient;
let known: KnownIds;

beforeAll(async () => {
  target = await startTarget();
  client = new ApiClient(target.baseUrl);
  known = await findKnownIds(client);
});

afterAll(() => target?.stop());

/** A URL no request has used yet: the unknown query parameter changes nothing in the answer but the cache key. */
function fresh(path: string): string {
  return `${path}${path.includes('?') ? '&' : '?'}probe=${randomUUID()}`;
}

/** Answers of the cached-read path so far, per route pattern. */
async function cachedReadHits(): Promise<Map<string, number>> {
  const metrics = await client.root('GET', '/metrics');
  expect(metrics.status).toBe(200);
  const hits = new Map<string, number>();
  for (const line of metrics.text.split('\n')) {
    const hit = /^gateway_cached_reads_total\{result="hit",route="([^"]*)"\} (\d+)$/.exec(line);
    if (hit?.[1]) hits.set(hit[1], Number(hit[2]));
  }
  return hits;
}

const total = (hits: Map<string, number>) => [...hits.values()].reduce((sum, count) => sum + count, 0);

function comparableHeaders(response: ApiResponse): Record<string, string> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!PER_REQUEST_HEADERS.has(name)) headers[name] = value;
  });
  return headers;
}

function expectSameAnswer(cached: ApiResponse, express: ApiResponse): void {
  expect(cached.status).toBe(express.status);
  expect(comparableHeaders(cached)).toEqual(comparableHeaders(express));
  expect(cached.text).toBe(express.text);
  for (const response of [cached, express]) {
    expect(response.headers.get('x-request-id')).toMatch(/^[\w.:-]+$/);
    expect(Number(response.headers.get('ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
    expect(Number(response.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
  }
}

describe('the cached-read path answers exactly as the Express path does', () => {
  const routes: [string, () => string][] = [
    ['a one-group week', () => `/week/2026-W12?groupIds=${known.semesterId}`],
    // Resolved to the week of now on either path; this file does not control the clock (a request at a
    // Monday midnight could see the week change between its two requests).
    ['the current week of one group', () => `/week/current?groupIds=${known.semesterId}`],
    ['an unfiltered week', () => '/week/2026-W12'],
    ["a semester's courses", () => `/semesters/${known.semesterId}/courses`],
    ['a semester feed', () => `/ical/${known.semesterId}`],
    ['a personal feed', () => `/ical?courseIds=${known.occurrence.course.id}`],
    ['the free rooms', () => '/rooms/free?from=2026-03-25T12:00:00Z&to=2026-03-25T13:00:00Z'],
  ];

  it.each(routes)('%s: 200 with the same headers and bytes', async (_name, path) => {
    const url = fresh(path());
    const express = await client.get(url);
    expect(express.status).toBe(200);
    const hitsBefore = total(await cachedReadHits());
    const cached = await client.get(url);
    expect(total(await cachedReadHits())).toBeGreaterThan(hitsBefore);
    expectSameAnswer(cached, express);
  });

  it.each(routes)('%s: 304 for a matching If-None-Match, with the same headers', async (_name, path) => {
    const { headers } = await client.get(fresh(path()));
    const ifNoneMatch = { headers: { 'if-none-match': headers.get('etag') ?? '' } };
    const url = fresh(path());
    const express = await client.get(url, ifNoneMatch);
    expect(express.status).toBe(304);
    const hitsBefore = total(await cachedReadHits());
    const cached = await client.get(url, ifNoneMatch);
    expect(total(await cachedReadHits())).toBeGreaterThan(hitsBefore);
    expectSameAnswer(cached, express);
  });

  it.each(routes)('%s: If-Modified-Since decided alike, 304 at a feed\'s Last-Modified and ignored where there is none', async (_name, path) => {
    const { headers } = await client.get(fresh(path()));
    const dated = path().startsWith('/ical');
    expect(headers.get('last-modified') !== null).toBe(dated);
    const ifModifiedSince = { headers: { 'if-modified-since': headers.get('last-modified') ?? 'Fri, 31 Dec 9999 23:59:59 GMT' } };
    const url = fresh(path());
    const express = await client.get(url, ifModifiedSince);
    expect(express.status).toBe(dated ? 304 : 200);
    const hitsBefore = total(await cachedReadHits());
    const cached = await client.get(url, ifModifiedSince);
    expect(total(await cachedReadHits())).toBeGreaterThan(hitsBefore);
    expectSameAnswer(cached, express);
  });

  it('counts a hit under the route of its URL, also when /week/current rendered the body first', async () => {
    const groupFilter = `groupIds=${known.semesterId}&probe=${randomUUID()}`;
    const current = await client.get(`/week/current?${groupFilter}`);
    expect(current.status).toBe(200);
    const before = await cachedReadHits();
    // Stored by that request as the answer to the URL of its week, and found there under either URL.
    expect((await client.get(`/week/${current.body.week}?${groupFilter}`)).status).toBe(200);
    expect((await client.get(`/week/current?${groupFilter}`)).status).toBe(200);
    const after = await cachedReadHits();
    for (const route of ['/v1/timetable/week/:week', '/v1/timetable/week/current']) {
      expect(after.get(route) ?? 0, route).toBe((before.get(route) ?? 0) + 1);
    }
  });

  it('leaves error answers and HEAD to the Express path', async () => {
    const url = fresh(`/ical/${randomUUID()}`);
    const first = await client.get(url);
    expect(first.status).toBe(404);
    expectSameAnswer(await client.get(url), first);
    expect(first.body.error.code).toBe('NOT_FOUND');
    const path = `/semesters/${known.semesterId}/courses`;
    const get = await client.get(path);
    const head = await client.api('HEAD', path);
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('etag')).toBe(get.headers.get('etag'));
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
  });
});
