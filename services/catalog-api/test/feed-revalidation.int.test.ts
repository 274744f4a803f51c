import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESPONSE_NAMESPACE } from '@timetable/cache';
import { entityKey } from '@timetable/contracts';
import { startCatalog, stateOf, type CatalogHarness } from './support/catalog-harness.js';
import { events, ids, universityStates } from './support/university-fixture.js';

/**
 * Calendar clients poll: the feeds tell them how often (REFRESH-INTERVAL, X-PUBLISHED-TTL) and let them
 * revalidate by date (Last-Modified, If-Modified-Since) as well as by ETag. A 304 must never hide a change.
 */

// X-PUBLISHED-TTL is Microsoft's; it holds a DURATION like RFC 7986 REFRESH-INTERVAL, which ical.js knows.
ICAL.design.icalendar.property['x-published-ttl'] = { defaultType: 'duration' };

let catalog: CatalogHarness;

const SEMESTER_FEED = `/ical/${ids.inf2}`;
const MATHE_FEED = `/ical?courseIds=${ids.mathe}`;
const UEBUNG_FEED = `/ical?courseIds=${ids.uebung}`;

async function lastModifiedOf(path: string): Promise<string | null> {
  const response = await catalog.get(path);
  expect(response.status).toBe(200);
  await response.text();
  return response.headers.get('last-modified');
}

async function statusSince(path: string, headers: Record<string, string>): Promise<number> {
  const response = await catalog.get(path, headers);
  await response.text();
  return response.status;
}

/** The clock of the catalog, and a new cache generation so the feeds are rendered at that time. */
async function at(iso: string): Promise<void> {
  catalog.clock.now = new Date(iso);
  await catalog.cache.bump(RESPONSE_NAMESPACE);
}

beforeAll(async () => {
  catalog = await startCatalog(new Date('2026-03-01T00:00:00.000Z'));
  await catalog.publish(universityStates);
});

afterAll(() => catalog.close());

describe('feed refresh hints', () => {
  it.each([
    ['the semester feed', SEMESTER_FEED],
    ['a personal feed', MATHE_FEED],
  ])('%s asks clients to refresh hourly, in both properties', async (_feed, path) => {
    const text = await (await catalog.get(path)).text();
    expect(text).toContain('\r\nREFRESH-INTERVAL;VALUE=DURATION:PT1H\r\nX-PUBLISHED-TTL:PT1H\r\n');
    const calendar = new ICAL.Component(ICAL.parse(text) as unknown[]);
    for (const name of ['refresh-interval', 'x-published-ttl']) expect((calendar.getFirstPropertyValue(name) as ICAL.Duration).toSeconds()).toBe(3600);
    expect(calendar.getAllSubcomponents('vevent').length).toBeGreaterThan(0);
  });
});

describe('Last-Modified is the newest change of any event in the feed', () => {
  it('on the semester feed and on personal feeds, as an HTTP date', async () => {
    expect(await lastModifiedOf(SEMESTER_FEED)).toBe('Sat, 10 Jan 2026 12:00:00 GMT');
    await catalog.publish([stateOf({ type: 'event', data: { ...events.uebungOnce, note: 'Raumwechsel' }, updatedAt: '2026-02-20T09:15:30.250Z' })]);
    expect(await lastModifiedOf(SEMESTER_FEED)).toBe('Fri, 20 Feb 2026 09:15:30 GMT');
    expect(await lastModifiedOf(UEBUNG_FEED)).toBe('Fri, 20 Feb 2026 09:15:30 GMT');
    // The changed event is not in this one.
    expect(await lastModifiedOf(MATHE_FEED)).toBe('Sat, 10 Jan 2026 12:00:00 GMT');
  });

  it('is the same on every URL of one feed and outlives the response cache', async () => {
    const both = `/ical?courseIds=${ids.mathe},${ids.uebung}`;
    const first = await lastModifiedOf(both);
    await at('2026-03-01T01:00:00.000Z');
    expect(await lastModifiedOf(`/ical?courseIds=${ids.uebung},${ids.mathe}`)).toBe(first);
  });
});

describe('If-Modified-Since', () => {
  const lastModified = 'Fri, 20 Feb 2026 09:15:30 GMT';

  it('is answered 304 at or after Last-Modified, to the second, with the validators and no body', async () => {
    const response = await catalog.get(SEMESTER_FEED, { 'If-Modified-Since': lastModified });
    expect(response.status).toBe(304);
    expect(await response.text()).toBe('');
    expect(response.headers.get('last-modified')).toBe(lastModified);
    expect(response.headers.get('etag')).not.toBeNull();
    expect(await statusSince(SEMESTER_FEED, { 'If-Modified-Since': 'Sat, 21 Feb 2026 00:00:00 GMT' })).toBe(304);
    expect(await statusSince(UEBUNG_FEED, { 'If-Modified-Since': 'Friday, 20-Feb-26 09:15:30 GMT' })).toBe(304);
  });

  it('is answered in full before Last-Modified, or when the date is malformed', async () => {
    expect(await statusSince(SEMESTER_FEED, { 'If-Modified-Since': 'Fri, 20 Feb 2026 09:15:29 GMT' })).toBe(200);
    for (const since of ['yesterday', '2027-01-01T00:00:00Z', 'Fri, 20 Feb 2026 09:15:30 UTC']) {
      const response = await catalog.get(SEMESTER_FEED, { 'If-Modified-Since': since });
      expect(response.status).toBe(200);
      expect(await response.text()).toMatch(/^BEGIN:VCALENDAR/);
    }
  });

  it('gives way to If-None-Match when both are sent', async () => {
    const etag = (await catalog.get(SEMESTER_FEED)).headers.get('etag') ?? '';
    expect(await statusSince(SEMESTER_FEED, { 'If-None-Match': '"other"', 'If-Modified-Since': lastModified })).toBe(200);
    expect(await statusSince(SEMESTER_FEED, { 'If-None-Match': etag, 'If-Modified-Since': 'Thu, 01 Jan 2026 00:00:00 GMT' })).toBe(304);
  });
});

describe('an empty feed', () => {
  it('is dated by the second it was first served empty, and keeps that date while it stays empty', async () => {
    await at('2026-03-01T02:00:00.700Z');
    expect(await lastModifiedOf(`/ical/${ids.mb1}`)).toBe('Sun, 01 Mar 2026 02:00:00 GMT');
    await at('2026-03-01T05:00:00.000Z');
    expect(await lastModifiedOf(`/ical/${ids.mb1}`)).toBe('Sun, 01 Mar 2026 02:00:00 GMT');
    expect(await statusSince(`/ical/${ids.mb1}`, { 'If-Modified-Since': 'Sun, 01 Mar 2026 02:00:00 GMT' })).toBe(304);
  });
});

describe('a feed whose content changes while no event in it does', () => {
  // Each changes the feed without raising the newest change of any event still in it; the date then moves to
  // the second the new content is first served in, so a client holding the old content gets it in full.
  async function expectRedated(path: string, change: () => Promise<void>, servedAt: string, expected: string): Promise<void> {
    const before = await lastModifiedOf(path);
    expect(before).not.toBeNull();
    await change();
    await at(servedAt);
    expect(await lastModifiedOf(path)).toBe(expected);
    expect(await statusSince(path, { 'If-Modified-Since': before! })).toBe(200);
    expect(await statusSince(path, { 'If-Modified-Since': expected })).toBe(304);
  }

  it('moves on when an event in it is deleted', async () => {
    await expectRedated(UEBUNG_FEED, () => catalog.publish([{ tombstone: entityKey('event', ids.uebungSundayNight) }]), '2026-03-02T10:00:00.400Z', 'Mon, 02 Mar 2026 10:00:00 GMT');
  });

  it('moves on when an event leaves the selection, its change dated before the feed was', async () => {
    const moved = stateOf({ type: 'event', data: { ...events.matheYearEnd, roomIds: [ids.roomHoersaal] }, updatedAt: '2026-01-10T12:00:00.500Z' });
    await expectRedated(`/ical?roomIds=${ids.roomA102}`, () => catalog.publish([moved]), '2026-03-02T11:00:00.000Z', 'Mon, 02 Mar 2026 11:00:00 GMT');
  });

  it('moves on when a course it shows is renamed', async () => {
    const renamed = { id: ids.mathe, name: 'Mathematik I', code: 'MA1', parentId: null, metadata: { credits: 5 }, programId: ids.informatik, semesterId: ids.inf2 };
    await expectRedated(MATHE_FEED, () => catalog.publish([stateOf({ type: 'course', data: renamed })]), '2026-03-02T12:00:00.000Z', 'Mon, 02 Mar 2026 12:00:00 GMT');
  });

  it('moves on when an occurrence leaves the 365-day window', async () => {
    await expectRedated(`/ical/${ids.inf1}`, () => Promise.resolve(), '2026-10-24T00:00:00.000Z', 'Sat, 24 Oct 2026 00:00:00 GMT');
  });

  it('sends no Last-Modified for content that follows another within one second, until that second has passed', async () => {
    const path = `/ical?roomIds=${ids.roomHoersaal}`;
    const renameRoom = (name: string) =>
      catalog.publish([stateOf({ type: 'room', data: { id: ids.roomHoersaal, name, building: 'B', campus: 'Nord', capacity: 40, tags: [], upstreamId: 3 } })]);
    expect(await lastModifiedOf(path)).not.toBeNull();
    await renameRoom('B 2.02, Hörsaal (neu)');
    await at('2026-10-24T08:00:00.100Z');
    expect(await lastModifiedOf(path)).toBe('Sat, 24 Oct 2026 08:00:00 GMT');
    await renameRoom('B 2.02, Hörsaal (Labor)');
    await at('2026-10-24T08:00:00.600Z');
    expect(await lastModifiedOf(path)).toBeNull();
    expect(await statusSince(path, { 'If-Modified-Since': 'Sat, 24 Oct 2026 08:00:00 GMT' })).toBe(200);
    await at('2026-10-24T08:00:01.200Z');
    expect(await lastModifiedOf(path)).toBe('Sat, 24 Oct 2026 08:00:01 GMT');
  });
});
