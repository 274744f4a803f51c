import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WeekResponse } from '@timetable/contracts';
import { startCatalog, stateOf, type CatalogHarness } from './support/catalog-harness.js';
import { event, ids, universityStates } from './support/university-fixture.js';

let catalog: CatalogHarness;
const HOUR_MS = 3_600_000;

async function week(path: string): Promise<WeekResponse> {
  const { status, body } = await catalog.json<WeekResponse>(path);
  expect(status).toBe(200);
  return body;
}

async function eventIds(path: string): Promise<string[]> {
  return (await week(path)).occurrences.map((occurrence) => occurrence.eventId);
}

function hours(range: WeekResponse['dateRange']): number {
  return (Date.parse(range.end) + 1 - Date.parse(range.start)) / HOUR_MS;
}

beforeAll(async () => {
  catalog = await startCatalog(new Date('2026-03-25T10:00:00.000Z'));
  await catalog.publish(universityStates);
});

afterAll(() => catalog.close());

describe('week ranges in Europe/Berlin', () => {
  it('2026-W13 is the 167-hour spring DST week, not wrapped in data, occurrences sorted by start', async () => {
    const body = await week('/week/2026-W13');
    expect(Object.keys(body).sort()).toEqual(['dateRange', 'occurrences', 'week']);
    expect(body.week).toBe('2026-W13');
    expect(body.dateRange).toEqual({ start: '2026-03-22T23:00:00.000Z', end: '2026-03-29T21:59:59.999Z' });
    expect(hours(body.dateRange)).toBe(167);
    expect(body.occurrences.map((occurrence) => occurrence.startTime)).toEqual(['2026-03-23T09:00:00.000Z', '2026-03-25T13:00:00.000Z']);
  });

  it('2026-W43 is the 169-hour autumn DST week and includes the fold time once', async () => {
    const body = await week('/week/2026-W43');
    expect(body.dateRange).toEqual({ start: '2026-10-18T22:00:00.000Z', end: '2026-10-25T22:59:59.999Z' });
    expect(hours(body.dateRange)).toBe(169);
    expect(body.occurrences.map((occurrence) => occurrence.startTime)).toEqual(['2026-10-23T07:00:00.000Z', '2026-10-25T00:30:00.000Z']);
  });

  it('2026-W53 exists and ends with the last millisecond of Sunday 3 January 2027', async () => {
    const body = await week('/week/2026-W53');
    expect(body.dateRange).toEqual({ start: '2026-12-27T23:00:00.000Z', end: '2027-01-03T22:59:59.999Z' });
    expect(body.occurrences.map((occurrence) => occurrence.eventId)).toEqual([ids.matheYearEnd, ids.uebungSundayNight]);
  });

  it('2027-W01 starts at Monday midnight local time, which is still Sunday in UTC', async () => {
    const body = await week('/week/2027-W01');
    expect(body.dateRange.start).toBe('2027-01-03T23:00:00.000Z');
    expect(body.occurrences.map((occurrence) => occurrence.eventId)).toEqual([ids.uebungMondayMidnight, ids.matheYearEnd]);
  });

  it('/week/current is the week containing now on the server', async () => {
    expect((await week('/week/current')).week).toBe('2026-W13');
  });
});

describe('week path validation', () => {
  it.each(['2026-W54', '2026-W00', '2026-w10', '2025-W53', '26-W10', '2026-W1'])('answers 400 VALIDATION_ERROR for %s', async (label) => {
    const { status, body } = await catalog.json<{ error: { code: string } }>(`/week/${label}`);
    expect(status).toBe(400);
    expect(body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('week occurrence shape', () => {
  it('carries eventId, local-midnight occurrenceDate, startTime, durationMin and originalEvent', async () => {
    const [midnight, mathe] = (await week('/week/2027-W01')).occurrences;
    expect(midnight).toMatchObject({ eventId: ids.uebungMondayMidnight, occurrenceDate: '2027-01-03T23:00:00.000Z', durationMin: 30 });
    expect(mathe).toEqual({
      eventId: ids.matheYearEnd,
      occurrenceDate: '2027-01-05T23:00:00.000Z',
      startTime: '2027-01-06T08:00:00.000Z',
      durationMin: 90,
      originalEvent: {
        id: ids.matheYearEnd,
        title: 'Vorlesung',
        courseId: ids.mathe,
        programId: ids.informatik,
        semesterId: ids.inf2,
        periodId: ids.periodInf2,
        roomId: ids.roomA102,
        roomIds: [ids.roomA102],
        instructorIds: [ids.schmidt],
        recurrenceRule: 'FREQ=WEEKLY;INTERVAL=1;UNTIL=20270106T080000Z',
        location: '',
        note: null,
      },
    });
  });

  it('gives the occurrence date of a late Sunday lecture as that Sunday', async () => {
    const sunday = (await week('/week/2026-W53')).occurrences.find((occurrence) => occurrence.eventId === ids.uebungSundayNight);
    expect(sunday?.occurrenceDate).toBe('2027-01-02T23:00:00.000Z');
  });
});

describe('week filters', () => {
  it('matches every room and instructor of an event, not only the first', async () => {
    expect(await eventIds(`/week/2026-W13?roomIds=${ids.roomA101}`)).toEqual([ids.matheSpring, ids.uebungOnce]);
    expect(await eventIds(`/week/2026-W13?roomIds=${ids.roomHoersaal}`)).toEqual([ids.uebungOnce]);
    expect(await eventIds(`/week/2026-W13?instructorIds=${ids.mueller}`)).toEqual([ids.matheSpring, ids.uebungOnce]);
    expect(await eventIds(`/week/2026-W13?instructorIds=${ids.schmidt}`)).toEqual([ids.uebungOnce]);
  });

  it('filters courses and groups (semester ids)', async () => {
    expect(await eventIds(`/week/2026-W13?courseIds=${ids.mathe}`)).toEqual([ids.matheSpring]);
    expect(await eventIds(`/week/2026-W13?groupIds=${ids.inf2}`)).toEqual([ids.matheSpring, ids.uebungOnce]);
    expect(await eventIds(`/week/2026-W13?groupIds=${ids.inf1}`)).toEqual([]);
  });

  it('intersects filters and accepts several ids per list', async () => {
    expect(await eventIds(`/week/2026-W13?courseIds=${ids.mathe}&roomIds=${ids.roomHoersaal}`)).toEqual([]);
    expect(await eventIds(`/week/2026-W13?courseIds=${ids.mathe},${ids.uebung}&instructorIds=${ids.schmidt}`)).toEqual([ids.uebungOnce]);
  });

  it('trims entries, drops empty ones, and lets malformed ids match nothing without a 400', async () => {
    expect(await eventIds(`/week/2026-W13?roomIds=%20${ids.roomHoersaal}%20,,`)).toEqual([ids.uebungOnce]);
    expect(await eventIds('/week/2026-W13?roomIds=')).toEqual([ids.matheSpring, ids.uebungOnce]);
    expect(await eventIds('/week/2026-W13?roomIds=not-a-uuid')).toEqual([]);
    expect(await eventIds('/week/2026-W13?roomIds=%00')).toEqual([]);
    expect(await eventIds(`/week/2026-W13?roomIds=not-a-uuid,${ids.roomHoersaal}`)).toEqual([ids.uebungOnce]);
  });
});

describe('week caching', () => {
  it('sends an ETag, answers 304 to If-None-Match, and shows projected changes at once', async () => {
    const first = await catalog.get('/week/2026-W13');
    const etag = first.headers.get('etag') ?? '';
    expect(etag).not.toBe('');
    expect((await catalog.get('/week/2026-W13', { 'If-None-Match': etag })).status).toBe(304);
    const extra = event({ id: '6f1c1f55-5f4a-4a57-9d0e-7d2b2f0e0a01', courseId: ids.algorithmen, dtstart: '2026-03-27T08:00:00' });
    await catalog.publish([stateOf({ type: 'event', data: extra })]);
    const after = await catalog.get('/week/2026-W13', { 'If-None-Match': etag });
    expect(after.status).toBe(200);
    expect(((await after.json()) as WeekResponse).occurrences).toHaveLength(3);
  });
});
