import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryCache, ResponseStore } from '@timetable/cache';
import { startCatalog, stateOf, TIME_ZONE, type CatalogHarness } from '../../catalog-api/test/support/catalog-harness.js';
import { events, ids, universityStates } from '../../catalog-api/test/support/university-fixture.js';
import { startTestGateway, type TestGateway } from '../../gateway/test/support/test-gateway.js';

/**
 * `/week/current` on the gateway's cached-read path answers exactly what Express answers for the current
 * week at that instant. One catalog on one controlled clock, behind two gateways: `fast` with the cached-read
 * path (the store the catalog renders into, TIME_ZONE and the same clock), `slow` with Express alone. Every
 * answer of `fast` is compared with the answer of `slow` at the same instant.
 */

let catalog: CatalogHarness;
let fast: TestGateway;
let slow: TestGateway;

/** Differ between any two answers by design: per request, per moment, or counted down per request. */
const PER_REQUEST_HEADERS = new Set(['date', 'x-request-id', 'ratelimit-remaining', 'ratelimit-reset']);
const GENEROUS_LIMITS = '1000000/1s';

beforeAll(async () => {
  const cache = new MemoryCache();
  catalog = await startCatalog(new Date('2026-12-07T12:00:00.000Z'), cache);
  await catalog.publish(universityStates);
  const now = () => catalog.clock.now;
  fast = await startTestGateway({ rateLimits: GENEROUS_LIMITS, upstreams: () => [catalog.routes], responses: new ResponseStore(cache), timeZone: TIME_ZONE, now });
  slow = await startTestGateway({ rateLimits: GENEROUS_LIMITS, upstreams: () => [catalog.routes] });
});

afterAll(async () => {
  await fast?.close();
  await slow?.close();
  await catalog?.close();
});

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

async function answerOf(gateway: TestGateway, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${gateway.api}${path}`, { headers });
  const kept: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!PER_REQUEST_HEADERS.has(name)) kept[name] = value;
  });
  return { status: response.status, headers: kept, body: await response.text() };
}

/** Answers of the cached-read path so far under the /week/current route. */
async function currentWeekHits(): Promise<number> {
  const metrics = await (await fetch(`${fast.origin}/metrics`)).text();
  const hits = /^gateway_cached_reads_total\{result="hit",route="\/v1\/timetable\/week\/current"\} (\d+)$/m.exec(metrics);
  return Number(hits?.[1] ?? 0);
}

/**
 * At `instant`: asks `fast` (and checks it equals `slow`), then asks it again, checks that this answer came
 * from the cached-read path and equals `slow` as well, and returns it.
 */
async function twiceAt(instant: Date, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  catalog.clock.now = instant;
  const express = await answerOf(slow, path, headers);
  expect(await answerOf(fast, path, headers)).toEqual(express);
  const hitsBefore = await currentWeekHits();
  const cached = await answerOf(fast, path, headers);
  expect(await currentWeekHits()).toBe(hitsBefore + 1);
  expect(cached).toEqual(express);
  return cached;
}

const weekOf = (answer: Answer) => (JSON.parse(answer.body) as { week: string }).week;
const lastMillisecondBefore = (instant: Date) => new Date(instant.getTime() - 1);

/** Monday 4 January 2027, 00:00 in Europe/Berlin (CET). */
const YEAR_END_MONDAY = new Date('2027-01-03T23:00:00.000Z');

describe('/week/current on the cached-read path', () => {
  // Monday 00:00 in Europe/Berlin: after the year's last week (CET), after the 169-hour week of the October
  // DST change (CET again), and after the 167-hour week of the March change (CEST).
  const boundaries: [string, Date, string, string, string][] = [
    ['the year end', YEAR_END_MONDAY, '2026-W53', '2027-W01', ids.inf2],
    ['the autumn DST week', new Date('2026-10-25T23:00:00.000Z'), '2026-W43', '2026-W44', ids.inf1],
    ['the spring DST week', new Date('2026-03-29T22:00:00.000Z'), '2026-W13', '2026-W14', ids.inf2],
  ];

  it.each(boundaries)('answers as Express on either side of Monday 00:00 after %s, back and forth', async (_name, monday, before, after, group) => {
    const path = `/week/current?groupIds=${group}`;
    const sunday = lastMillisecondBefore(monday);
    const [sundayAnswer, mondayAnswer] = [await twiceAt(sunday, path), await twiceAt(monday, path)];
    expect([weekOf(sundayAnswer), weekOf(mondayAnswer)]).toEqual([before, after]);
    expect(mondayAnswer.body).not.toBe(sundayAnswer.body);
    // Both weeks stored now: each instant is still answered with its own week.
    expect(await twiceAt(sunday, path)).toEqual(sundayAnswer);
    expect(await twiceAt(monday, path)).toEqual(mondayAnswer);
  });

  it('answers 304 only for the ETag of the week at that instant, as Express does', async () => {
    const monday = YEAR_END_MONDAY;
    const path = `/week/current?groupIds=${ids.inf2}`;
    const sundayEtag = (await twiceAt(lastMillisecondBefore(monday), path)).headers.etag ?? '';
    expect((await twiceAt(lastMillisecondBefore(monday), path, { 'if-none-match': sundayEtag })).status).toBe(304);
    expect((await twiceAt(monday, path, { 'if-none-match': sundayEtag })).status).toBe(200);
  });

  it('never answers from before a catalog change', async () => {
    const path = `/week/current?groupIds=${ids.inf2}`;
    const wednesday = new Date('2027-01-06T12:00:00.000Z');
    const before = await twiceAt(wednesday, path);
    expect(before.body).toContain(events.matheYearEnd.title);
    await catalog.publish([stateOf({ type: 'event', data: { ...events.matheYearEnd, title: 'Mathe V, verlegt' } })]);
    catalog.clock.now = wednesday;
    const express = await answerOf(slow, path);
    expect(express.body).toContain('Mathe V, verlegt');
    expect(await answerOf(fast, path)).toEqual(express);
    expect(await twiceAt(wednesday, path)).toEqual(express);
  });
});
