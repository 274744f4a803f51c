/**
 * Every feed the fixture university can produce, read by ical.js (an independent parser): the semester feeds and
 * a personal feed for every group, course, room and instructor. Each must parse and hold exactly the stored
 * occurrences of the next 365 days, each VEVENT with its UID, its instants in UTC, and the wall-clock start
 * and duration the fixture gave its event in Europe/Berlin. The same input must render to the same bytes.
 */
import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESPONSE_NAMESPACE } from '@timetable/cache';
import type { Knex } from '@timetable/db';
import { ICAL_DOMAIN, TIME_ZONE, startCatalog, type CatalogHarness } from './support/catalog-harness.js';
import { events, ids, universityStates } from './support/university-fixture.js';

const NOW = new Date('2026-03-01T00:00:00.000Z');
const HORIZON_END = new Date(NOW.getTime() + 365 * 86_400_000);

let catalog: CatalogHarness;

interface Feed {
  path: string;
  /** Narrows a query of the stored occurrences to those the feed must hold. */
  expected: (query: Knex.QueryBuilder) => void;
}

/** Occurrences whose event is linked to `id` in `table` (event_rooms, event_instructors). */
const linkedTo = (table: string, column: string, id: string) => (query: Knex.QueryBuilder) =>
  void query.whereIn('o.event_id', (links) => {
    links.from(table).where(column, id).select('event_id');
  });

const FEEDS: Feed[] = [
  ...[ids.inf1, ids.inf2, ids.mb1, ids.orphan].flatMap((semesterId) => [
    {
      path: `/ical/${semesterId}`,
      expected: (query: Knex.QueryBuilder) =>
        void query.whereIn('o.period_id', (periods) => {
          periods.from('semesters').where('id', semesterId).select('academic_period_id');
        }),
    },
    { path: `/ical?groupIds=${semesterId}`, expected: (query: Knex.QueryBuilder) => void query.where('o.semester_id', semesterId) },
  ]),
  ...[ids.mathe, ids.uebung, ids.algorithmen, ids.datenbanken].map((courseId) => ({
    path: `/ical?courseIds=${courseId}`,
    expected: (query: Knex.QueryBuilder) => void query.where('o.course_id', courseId),
  })),
  ...[ids.roomA101, ids.roomHoersaal, ids.roomA102].map((roomId) => ({ path: `/ical?roomIds=${roomId}`, expected: linkedTo('event_rooms', 'room_id', roomId) })),
  ...[ids.mueller, ids.schmidt].map((instructorId) => ({
    path: `/ical?instructorIds=${instructorId}`,
    expected: linkedTo('event_instructors', 'instructor_id', instructorId),
  })),
];

const fixtureEvents = new Map(Object.values(events).map((event) => [event.id, event]));

const berlin = new Intl.DateTimeFormat('en-CA', {
  timeZone: TIME_ZONE,
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
});

/** `YYYY-MM-DD` and `HH:MM` of an instant on the wall clock of the service's zone. */
function wallClock(instant: Date): { date: string; time: string } {
  const parts = Object.fromEntries(berlin.formatToParts(instant).map((part) => [part.type, part.value]));
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}` };
}

/** A wall-clock date and time plus some minutes, on the wall clock (no zone). */
function wallClockPlus(local: { date: string; time: string }, minutes: number): { date: string; time: string } {
  const later = new Date(Date.parse(`${local.date}T${local.time}:00Z`) + minutes * 60_000).toISOString();
  return { date: later.slice(0, 10), time: later.slice(11, 16) };
}

async function storedOccurrences(feed: Feed): Promise<string[]> {
  const query = catalog.knex('occurrences as o').where('o.start_time', '>=', NOW).andWhere('o.start_time', '<', HORIZON_END);
  feed.expected(query);
  const rows: { event_id: string; start_time: Date }[] = await query.select('o.event_id', 'o.start_time');
  return rows.map((row) => `${row.event_id} ${row.start_time.toISOString()}`).sort();
}

async function fetchFeed(path: string): Promise<string> {
  const response = await catalog.get(path);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return text;
}

beforeAll(async () => {
  catalog = await startCatalog(NOW);
  await catalog.publish(universityStates);
});

afterAll(() => catalog.close());

describe.each(FEEDS.map((feed) => [feed.path, feed] as const))('%s', (_path, feed) => {
  it('parses with ical.js and holds the stored occurrences, each at its UTC instants and Berlin wall-clock time', async () => {
    const calendar = new ICAL.Component(ICAL.parse(await fetchFeed(feed.path)) as unknown[]);
    expect(calendar.name).toBe('vcalendar');
    expect(calendar.getAllSubcomponents('vtimezone')).toEqual([]);
    const vevents = calendar.getAllSubcomponents('vevent');
    const seen = vevents.map((vevent) => {
      const uid = String(vevent.getFirstPropertyValue('uid'));
      const [start, end] = (['dtstart', 'dtend'] as const).map((name) => {
        const time = vevent.getFirstPropertyValue(name) as ICAL.Time;
        expect(time.zone?.tzid, `${uid} ${name}`).toBe('UTC');
        return time.toJSDate();
      }) as [Date, Date];
      const eventId = uid.slice(0, 36);
      const fixture = fixtureEvents.get(eventId);
      expect(fixture, uid).toBeDefined();
      const local = wallClock(start);
      expect(uid).toBe(`${eventId}-${local.date}@${ICAL_DOMAIN}`);
      expect(local.time, uid).toBe(fixture!.dtstart.slice(11, 16));
      // The duration is wall-clock time: 02:30 summer time plus 90 minutes ends at 04:00 winter time.
      expect(wallClock(end), uid).toEqual(wallClockPlus(local, fixture!.durationMinutes));
      return `${eventId} ${start.toISOString()}`;
    });
    expect(new Set(vevents.map((vevent) => vevent.getFirstPropertyValue('uid'))).size).toBe(vevents.length);
    expect(seen.sort()).toEqual(await storedOccurrences(feed));
  });
});

describe('the rendered bytes', () => {
  it('are the same for the same input when the feed is rendered again, later', async () => {
    const paths = FEEDS.map((feed) => feed.path);
    const first = await Promise.all(paths.map(fetchFeed));
    // A new cache generation makes the catalog render every feed afresh; the wall clock has moved on meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await catalog.cache.bump(RESPONSE_NAMESPACE);
    expect(await Promise.all(paths.map(fetchFeed))).toEqual(first);
    expect(first.filter((text) => text.includes('BEGIN:VEVENT')).length).toBeGreaterThan(FEEDS.length / 2);
  });
});
