import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESPONSE_NAMESPACE } from '@timetable/cache';
import { ICAL_DOMAIN, startCatalog, stateOf, type CatalogHarness } from './support/catalog-harness.js';
import { events, ids, universityStates } from './support/university-fixture.js';

let catalog: CatalogHarness;

interface FeedEvent {
  uid: string;
  summary: string;
  location: string | null;
  start: string;
  end: string;
  stamp: string;
  sequence: number;
  hasRrule: boolean;
}

async function feed(semesterId: string): Promise<{ name: string; events: FeedEvent[]; text: string; response: Response }> {
  const response = await catalog.get(`/ical/${semesterId}`);
  expect(response.status).toBe(200);
  const text = await response.text();
  const calendar = new ICAL.Component(ICAL.parse(text) as unknown[]);
  const instant = (event: ICAL.Component, name: string) => (event.getFirstPropertyValue(name) as ICAL.Time).toJSDate().toISOString();
  return {
    name: String(calendar.getFirstPropertyValue('x-wr-calname')),
    text,
    response,
    events: calendar.getAllSubcomponents('vevent').map((event) => ({
      uid: String(event.getFirstPropertyValue('uid')),
      summary: String(event.getFirstPropertyValue('summary')),
      location: (event.getFirstPropertyValue('location') as string | null) ?? null,
      start: instant(event, 'dtstart'),
      end: instant(event, 'dtend'),
      stamp: instant(event, 'dtstamp'),
      sequence: Number(event.getFirstPropertyValue('sequence')),
      hasRrule: event.hasProperty('rrule'),
    })),
  };
}

// Feeds depend on "now"; a new clock needs a fresh cache generation, as a projected change would give.
async function setNow(iso: string): Promise<void> {
  catalog.clock.now = new Date(iso);
  await catalog.cache.bump(RESPONSE_NAMESPACE);
}

beforeAll(async () => {
  catalog = await startCatalog();
  await catalog.publish(universityStates);
});

afterAll(() => catalog.close());

describe('/ical/:semesterId', () => {
  it('has one VEVENT per stored occurrence, instants equal to the stored ones, no RRULE', async () => {
    const { events: feedEvents } = await feed(ids.inf2);
    const stored: { start_time: Date; end_time: Date }[] = await catalog.knex('occurrences').where('period_id', ids.periodInf2).orderBy('start_time');
    expect(feedEvents.map((event) => [event.start, event.end])).toEqual(stored.map((row) => [row.start_time.toISOString(), row.end_time.toISOString()]));
    expect(feedEvents.some((event) => event.hasRrule)).toBe(false);
  });

  it('gives every occurrence a unique UID <eventId>-<local date>@ICAL_DOMAIN', async () => {
    const { events: feedEvents } = await feed(ids.inf2);
    const uids = feedEvents.map((event) => event.uid);
    expect(new Set(uids).size).toBe(uids.length);
    expect(uids).toContain(`${ids.matheSpring}-2026-03-30@${ICAL_DOMAIN}`);
    // 00:00 local on 4 January is 3 January in UTC: the UID takes the local date.
    expect(uids).toContain(`${ids.uebungMondayMidnight}-2027-01-04@${ICAL_DOMAIN}`);
  });

  it('keeps umlauts and commas in the calendar name, summaries and locations intact', async () => {
    const { name, events: feedEvents } = await feed(ids.inf2);
    expect(name).toBe('INF – INF 2');
    const shared = feedEvents.find((event) => event.uid.startsWith(ids.uebungOnce));
    expect(shared?.summary).toBe('Übung, Straße & Café');
    expect(shared?.location).toBe('B 2.02, Hörsaal, A 1.01');
  });

  it('sets the headers, an ETag, and answers 304 to If-None-Match', async () => {
    const { response } = await feed(ids.inf2);
    expect(response.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('public, max-age=600');
    const etag = response.headers.get('etag') ?? '';
    expect(etag).not.toBe('');
    const again = await catalog.get(`/ical/${ids.inf2}`, { 'If-None-Match': etag });
    expect(again.status).toBe(304);
  });

  it('stamps events with their last change and raises SEQUENCE on every change', async () => {
    const before = (await feed(ids.inf2)).events.find((event) => event.uid.startsWith(ids.uebungOnce));
    expect(before).toMatchObject({ stamp: '2026-01-10T12:00:00.000Z', sequence: 0 });
    await catalog.publish([stateOf({ type: 'event', data: { ...events.uebungOnce, note: 'Raumwechsel' }, updatedAt: '2026-02-15T07:30:00.000Z' })]);
    const after = (await feed(ids.inf2)).events.find((event) => event.uid.startsWith(ids.uebungOnce));
    expect(after).toMatchObject({ stamp: '2026-02-15T07:30:00.000Z', sequence: 1 });
  });

  it('covers the next 365 days from now only', async () => {
    await setNow('2026-03-24T00:00:00.000Z');
    const starts = (await feed(ids.inf2)).events.map((event) => event.start);
    expect(starts[0]).toBe('2026-03-25T13:00:00.000Z');
    await setNow('2026-01-05T00:00:00.000Z');
    const lastStart = (await feed(ids.inf2)).events.at(-1)?.start;
    expect(lastStart).toBe('2027-01-03T23:00:00.000Z');
    await setNow('2026-03-01T00:00:00.000Z');
  });

  it('names the calendar with the fixed service label when the program is unknown', async () => {
    const { name, events: feedEvents } = await feed(ids.orphan);
    expect(name).toBe('Timetable – Gast 1');
    expect(feedEvents).toHaveLength(1);
  });

  it('returns a valid empty calendar for a semester without academic period', async () => {
    const { name, events: feedEvents, text } = await feed(ids.mb1);
    expect(name).toBe('MB – MB 1');
    expect(feedEvents).toEqual([]);
    expect(text.endsWith('END:VCALENDAR\r\n')).toBe(true);
  });

  it('answers 404 for unknown and malformed semester ids', async () => {
    for (const id of [ids.informatik, 'not-a-uuid']) {
      const response = await catalog.get(`/ical/${id}`);
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: { message: string } }).error.message).toBe(`semester with id ${id} not found`);
    }
  });
});
