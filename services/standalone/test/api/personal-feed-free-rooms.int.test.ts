import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, expectError } from './support/api-client.js';
import { startTarget, type Target } from './support/target.js';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

interface Occurrence {
  id: string;
  startTime: string;
  endTime: string;
  course: { id: string };
  room: { id: string } | null;
}

interface FeedEvent {
  uid: string;
  start: number;
  text: string;
}

let target: Target;
let client: ApiClient;
let semester: { id: string; name: string; occurrences: Occurrence[] };

beforeAll(async () => {
  target = await startTarget();
  client = new ApiClient(target.baseUrl);
  const semesters = (await client.get('/semesters')).body.data as { id: string; name: string; academicPeriodId: string | null }[];
  for (const entry of semesters.filter((candidate) => candidate.academicPeriodId !== null)) {
    const occurrences = (await client.get(`/semesters/${entry.id}/courses`)).body.data as Occurrence[];
    if (occurrences.some((occurrence) => occurrence.room !== null && Date.parse(occurrence.startTime) > Date.now())) {
      semester = { id: entry.id, name: entry.name, occurrences };
      return;
    }
  }
  throw new Error('no semester with future occurrences in the mirrored catalog');
});

afterAll(() => target?.stop());

/** Parsed with ical.js; each VEVENT kept whole (its serialised form) so two feeds compare event by event. */
function parseFeed(text: string): { name: string; events: FeedEvent[] } {
  const calendar = new ICAL.Component(ICAL.parse(text) as unknown[]);
  const events = calendar.getAllSubcomponents('vevent').map((event) => ({
    uid: String(event.getFirstPropertyValue('uid')),
    start: (event.getFirstPropertyValue('dtstart') as ICAL.Time).toJSDate().getTime(),
    text: event.toString(),
  }));
  return { name: String(calendar.getFirstPropertyValue('x-wr-calname')), events };
}

// A cached feed may be up to 10 minutes old: compare only what any feed rendered in that time must hold.
function settled(events: FeedEvent[]): string[] {
  const from = Date.now() + 15 * MINUTE_MS;
  const to = Date.now() + 364 * DAY_MS;
  return events.filter((event) => event.start >= from && event.start < to).map((event) => event.text);
}

describe('GET /v1/timetable/ical (personal feed)', () => {
  it('serves a group the VEVENTs of its semester feed, with the feed headers, an ETag and 304', async () => {
    const personal = await client.get(`/ical?groupIds=${semester.id}`);
    expect(personal.status).toBe(200);
    expect(personal.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(personal.headers.get('cache-control')).toBe('public, max-age=600');
    const feed = parseFeed(personal.text);
    expect(feed.name).toContain(semester.name);
    const semesterFeed = parseFeed((await client.get(`/ical/${semester.id}`)).text);
    expect(settled(feed.events).length).toBeGreaterThan(0);
    expect(settled(feed.events)).toEqual(settled(semesterFeed.events));
    const etag = personal.headers.get('etag');
    expect(etag).toBeTruthy();
    expect((await client.get(`/ical?groupIds=${semester.id}`, { headers: { 'If-None-Match': etag! } })).status).toBe(304);
  });

  it('selects by course with the week views rules: trimmed entries, empty ones dropped, malformed ones matching nothing', async () => {
    const courseId = semester.occurrences.find((occurrence) => Date.parse(occurrence.startTime) > Date.now())!.course.id;
    const plain = parseFeed((await client.get(`/ical?courseIds=${courseId}`)).text).events;
    expect(plain.length).toBeGreaterThan(0);
    const padded = parseFeed((await client.get(`/ical?courseIds=%20${courseId}%20,,not-a-uuid&roomIds=`)).text).events;
    expect(padded.map((event) => event.uid)).toEqual(plain.map((event) => event.uid));
    expect(parseFeed((await client.get('/ical?courseIds=not-a-uuid')).text).events).toEqual([]);
  });

  it('answers 400 VALIDATION_ERROR without any id, and is not taken for a semester feed', async () => {
    expectError(await client.get('/ical'), 400, 'VALIDATION_ERROR');
    expectError(await client.get('/ical?courseIds=,%20,'), 400, 'VALIDATION_ERROR');
  });
});

describe('GET /v1/timetable/rooms/free', () => {
  it('leaves out a room while one of its occurrences takes place, and lists only known rooms', async () => {
    const busy = semester.occurrences.find((occurrence) => occurrence.room !== null && Date.parse(occurrence.startTime) > Date.now())!;
    const response = await client.get(`/rooms/free?from=${busy.startTime}&to=${busy.endTime}`);
    expect(response.status).toBe(200);
    expect(response.body.data.period).toEqual({ from: busy.startTime, to: busy.endTime });
    const freeIds = (response.body.data.rooms as { id: string }[]).map((room) => room.id);
    expect(freeIds).not.toContain(busy.room!.id);
    const known = new Set(((await client.get('/rooms')).body.data as { id: string }[]).map((room) => room.id));
    expect(freeIds.every((id) => known.has(id))).toBe(true);
    const etag = response.headers.get('etag');
    expect(etag).toBeTruthy();
    expect((await client.get(`/rooms/free?from=${busy.startTime}&to=${busy.endTime}`, { headers: { 'If-None-Match': etag! } })).status).toBe(304);
  });

  it('answers 400 for a missing, reversed or too long window, and is not taken for a room id', async () => {
    expectError(await client.get('/rooms/free'), 400, 'VALIDATION_ERROR');
    expectError(await client.get('/rooms/free?from=2026-03-25T12:00:00Z&to=2026-03-25T11:00:00Z'), 400, 'VALIDATION_ERROR');
    expectError(await client.get('/rooms/free?from=2026-03-01T00:00:00Z&to=2026-03-16T00:00:00Z'), 400, 'VALIDATION_ERROR');
  });
});
