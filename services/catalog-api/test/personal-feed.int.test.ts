import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESPONSE_NAMESPACE } from '@timetable/cache';
import { ICAL_DOMAIN, startCatalog, stateOf, type CatalogHarness } from './support/catalog-harness.js';
import { parseCalendar, type ParsedFeedEvent } from './support/parse-feed.js';
import { events, ids, universityStates } from './support/university-fixture.js';

let catalog: CatalogHarness;

async function personal(query: string): Promise<{ name: string; events: ParsedFeedEvent[]; response: Response }> {
  const response = await catalog.get(`/ical?${query}`);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return { ...parseCalendar(text), response };
}

const eventIdsOf = async (query: string) => (await personal(query)).events.map((event) => event.eventId);

async function expectValidationError(query: string): Promise<void> {
  const response = await catalog.get(`/ical${query}`);
  expect(response.status).toBe(400);
  expect(((await response.json()) as { error: { code: string } }).error.code).toBe('VALIDATION_ERROR');
}

beforeAll(async () => {
  catalog = await startCatalog(new Date('2026-03-01T00:00:00.000Z'));
  await catalog.publish(universityStates);
});

afterAll(() => catalog.close());

describe('/ical personal feed filters (the week views rules)', () => {
  it('selects by each filter alone; every room and instructor of an event counts', async () => {
    const { matheSpring: spring, matheYearEnd: yearEnd, uebungOnce: once } = ids;
    expect(await eventIdsOf(`courseIds=${ids.mathe}`)).toEqual([spring, spring, spring, spring, yearEnd, yearEnd]);
    expect(await eventIdsOf(`groupIds=${ids.inf1}`)).toEqual([ids.datenbankenOctober, ids.datenbankenFold]);
    // A 1.01 is the Übung's second room, Müller its second instructor.
    expect(await eventIdsOf(`roomIds=${ids.roomA101}`)).toEqual([spring, spring, once, spring, spring]);
    expect(await eventIdsOf(`instructorIds=${ids.mueller}`)).toEqual([spring, spring, once, spring, spring]);
  });

  it('intersects the filters and unites the ids within one filter', async () => {
    expect(await eventIdsOf(`courseIds=${ids.mathe},${ids.uebung}&instructorIds=${ids.schmidt}`)).toEqual([ids.uebungOnce, ids.matheYearEnd, ids.matheYearEnd]);
    expect(await eventIdsOf(`groupIds=${ids.inf2}&roomIds=${ids.roomA102}`)).toEqual([ids.matheYearEnd, ids.matheYearEnd]);
    expect(await eventIdsOf(`courseIds=${ids.mathe}&roomIds=${ids.roomHoersaal}`)).toEqual([]);
  });

  it('trims entries and drops empty ones and empty filters', async () => {
    const plain = await eventIdsOf(`courseIds=${ids.datenbanken}`);
    expect(plain).toEqual([ids.orphanEvent, ids.datenbankenOctober, ids.datenbankenFold]);
    expect(await eventIdsOf(`courseIds=%20${ids.datenbanken}%20,,%20&roomIds=&instructorIds=,`)).toEqual(plain);
  });

  it('lets malformed and unknown ids match nothing, without a 400', async () => {
    expect(await eventIdsOf('courseIds=not-a-uuid')).toEqual([]);
    expect(await eventIdsOf(`courseIds=%00&instructorIds=${ids.mueller}`)).toEqual([]);
    expect(await eventIdsOf(`roomIds=${randomUUID()}`)).toEqual([]);
    expect(await eventIdsOf(`groupIds=not-a-uuid,${ids.inf1}`)).toEqual([ids.datenbankenOctober, ids.datenbankenFold]);
  });

  it('answers 400 VALIDATION_ERROR without any id, and above 100 ids in all', async () => {
    for (const query of ['', '?', '?courseIds=', '?courseIds=%20,%20,&groupIds=', '?unknownFilter=x']) await expectValidationError(query);
    const many = (count: number) => Array.from({ length: count }, () => randomUUID()).join(',');
    await expectValidationError(`?courseIds=${many(60)}&roomIds=${many(41)}`);
    expect((await personal(`courseIds=${many(60)}&roomIds=${many(39)},${ids.roomA101}`)).events).toEqual([]);
  });
});

describe('/ical personal feed VEVENTs', () => {
  it('are those of the semester feed: same UID, times, summary, location, DTSTAMP and SEQUENCE', async () => {
    const semesterFeed = await catalog.get(`/ical/${ids.inf2}`);
    const semesterEvents = parseCalendar(await semesterFeed.text()).events;
    expect(semesterEvents.length).toBeGreaterThan(0);
    expect((await personal(`groupIds=${ids.inf2}`)).events).toEqual(semesterEvents);
    const uebung = (await personal(`courseIds=${ids.uebung}`)).events;
    expect(uebung.map((event) => event.eventId)).toEqual([ids.uebungOnce, ids.uebungSundayNight, ids.uebungMondayMidnight]);
    for (const event of uebung) expect(semesterEvents.find((candidate) => candidate.uid === event.uid)).toEqual(event);
  });

  it('places occurrences around the spring DST change at their local wall-clock time', async () => {
    const spring = (await personal(`courseIds=${ids.mathe}&roomIds=${ids.roomA101}`)).events;
    // Mondays 10:00 in Berlin: UTC+1 before 29 March 2026, UTC+2 after.
    expect(spring.map((event) => [event.start, event.end])).toEqual([
      ['2026-03-16T09:00:00.000Z', '2026-03-16T10:30:00.000Z'],
      ['2026-03-23T09:00:00.000Z', '2026-03-23T10:30:00.000Z'],
      ['2026-03-30T08:00:00.000Z', '2026-03-30T09:30:00.000Z'],
      ['2026-04-06T08:00:00.000Z', '2026-04-06T09:30:00.000Z'],
    ]);
    expect(spring.map((event) => event.uid)).toContain(`${ids.matheSpring}-2026-03-30@${ICAL_DOMAIN}`);
    expect(spring.every((event) => !event.hasRrule)).toBe(true);
  });

  it('dates night lectures by their local day, at their UTC instants', async () => {
    const night = (await personal(`courseIds=${ids.uebung}&groupIds=${ids.inf2}`)).events.slice(1);
    expect(night.map((event) => [event.uid, event.start, event.end])).toEqual([
      [`${ids.uebungSundayNight}-2027-01-03@${ICAL_DOMAIN}`, '2027-01-03T22:30:00.000Z', '2027-01-03T23:00:00.000Z'],
      // Midnight on Monday 4 January in Berlin is still Sunday in UTC.
      [`${ids.uebungMondayMidnight}-2027-01-04@${ICAL_DOMAIN}`, '2027-01-03T23:00:00.000Z', '2027-01-03T23:30:00.000Z'],
    ]);
    const fold = (await personal(`roomIds=${ids.roomA102}&courseIds=${ids.datenbanken}`)).events;
    // 02:30 on 25 October 2026 happens twice in Berlin: the earlier (summer time) instant.
    expect(fold.map((event) => event.start)).toEqual(['2026-10-25T00:30:00.000Z']);
  });

  it('covers the next 365 days from now only', async () => {
    catalog.clock.now = new Date('2026-03-24T00:00:00.000Z');
    await catalog.cache.bump(RESPONSE_NAMESPACE);
    try {
      const starts = (await personal(`courseIds=${ids.mathe}`)).events.map((event) => event.start);
      expect(starts[0]).toBe('2026-03-30T08:00:00.000Z');
    } finally {
      catalog.clock.now = new Date('2026-03-01T00:00:00.000Z');
      await catalog.cache.bump(RESPONSE_NAMESPACE);
    }
  });
});

describe('/ical personal feed calendar name', () => {
  it('names the selection: names within a filter by commas, filters by a middle dot', async () => {
    expect((await personal(`courseIds=${ids.uebung},${ids.mathe}`)).name).toBe('Timetable – Mathematik 1, Übung, Straße & Café');
    expect((await personal(`instructorIds=${ids.schmidt}&roomIds=${ids.roomHoersaal},${ids.roomA101}&groupIds=${ids.inf2}`)).name).toBe(
      'Timetable – INF 2 · A 1.01, B 2.02, Hörsaal · Dr. Schmidt',
    );
  });

  it('shows three names per filter, counts the rest, and falls back when no id is known', async () => {
    const courses = [ids.uebung, ids.datenbanken, ids.algorithmen, ids.mathe].join(',');
    expect((await personal(`courseIds=${courses}`)).name).toBe('Timetable – Algorithmen, datenbanken, Mathematik 1 +1 more');
    expect((await personal(`courseIds=not-a-uuid,${randomUUID()}`)).name).toBe('Timetable – personal selection');
  });
});

describe('/ical personal feed caching', () => {
  it('sends the feed headers and an ETag, answers 304, and ignores the order of the ids', async () => {
    const { response } = await personal(`courseIds=${ids.mathe},${ids.uebung}`);
    expect(response.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('public, max-age=600');
    const etag = response.headers.get('etag') ?? '';
    expect(etag).not.toBe('');
    const reordered = await catalog.get(`/ical?courseIds=${ids.uebung},${ids.mathe}`, { 'If-None-Match': etag });
    expect(reordered.status).toBe(304);
    expect(await reordered.text()).toBe('');
  });

  it('changes the ETag and drops the VEVENT when an occurrence is cancelled', async () => {
    const query = `courseIds=${ids.mathe}`;
    const before = await personal(query);
    const cancelledUid = `${ids.matheSpring}-2026-03-23@${ICAL_DOMAIN}`;
    expect(before.events.map((event) => event.uid)).toContain(cancelledUid);
    const etag = before.response.headers.get('etag') ?? '';
    await catalog.publish([
      stateOf({ type: 'event', data: { ...events.matheSpring, exdates: ['2026-03-23T10:00:00'] }, updatedAt: '2026-03-02T08:00:00.000Z' }),
    ]);
    const after = await catalog.get(`/ical?${query}`, { 'If-None-Match': etag });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(etag);
    const remaining = parseCalendar(await after.text()).events;
    expect(remaining.map((event) => event.uid)).not.toContain(cancelledUid);
    expect(remaining).toHaveLength(before.events.length - 1);
  });
});
