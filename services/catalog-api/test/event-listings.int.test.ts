/**
 * Course listings of semesters, programs and instructors: one entry per event, never one per dated
 * occurrence, so that a client expanding the entries gets each lecture once and holidays stay holidays.
 */
import type { InstructorResource, OccurrenceResource, RoomScheduleEntry, WeekResponse } from '@timetable/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expandAsCalendarClient } from './support/calendar-client-expansion.js';
import { startCatalog, TIME_ZONE, type CatalogHarness } from './support/catalog-harness.js';
import { listingEvents, listingIds as ids, listingStates } from './support/listing-fixture.js';

let catalog: CatalogHarness;

async function listing(path: string): Promise<OccurrenceResource[]> {
  const { status, body } = await catalog.json<{ data: OccurrenceResource[] }>(path);
  expect(status).toBe(200);
  return body.data;
}

const byId = (entries: OccurrenceResource[], id: string): OccurrenceResource | undefined => entries.find((entry) => entry.id === id);

beforeAll(async () => {
  catalog = await startCatalog(new Date('2026-03-01T00:00:00.000Z'));
  await catalog.publish(listingStates);
});

afterAll(() => catalog.close());

describe('/semesters/:id/courses lists one entry per event', () => {
  it('has each event once, sorted by first start, then id', async () => {
    const entries = await listing(`/semesters/${ids.spring}/courses`);
    const [firstTwin, secondTwin] = [ids.twinA, ids.twinB].sort();
    expect(entries.map((entry) => entry.id)).toEqual([ids.lateNight, ids.seminar, firstTwin, secondTwin]);
  });

  it("carries the first occurrence's times, the UTC weekday of its start and the RRULE value without prefix", async () => {
    const entries = await listing(`/semesters/${ids.spring}/courses`);
    expect(byId(entries, ids.seminar)).toEqual({
      id: ids.seminar,
      summary: 'Optik',
      startTime: '2026-03-17T11:00:00.000Z',
      endTime: '2026-03-17T12:30:00.000Z',
      weekday: 2,
      recurrenceRule: 'FREQ=WEEKLY;INTERVAL=1;UNTIL=20260421T100000Z',
      excludedDates: expect.any(Array),
      course: { id: ids.course, name: 'Optik', code: 'OPT' },
      room: { id: ids.room, name: 'C 0.01', building: 'C' },
      instructor: { id: ids.lecturer, name: 'Prof. Weber' },
      semester: { id: ids.spring, name: 'PHY 2', program: { id: ids.program, name: 'Physik' } },
    });
    const lateNight = byId(entries, ids.lateNight);
    expect(lateNight).toMatchObject({ startTime: '2026-03-15T23:30:00.000Z', endTime: '2026-03-16T00:00:00.000Z', weekday: 0, recurrenceRule: null, excludedDates: [] });
    expect(entries.every((entry) => entry.recurrenceRule === null || !entry.recurrenceRule.startsWith('RRULE:'))).toBe(true);
  });

  it('lists the cancelled occurrence and the holiday week as excludedDates, which the week views do not serve', async () => {
    const excluded = byId(await listing(`/semesters/${ids.spring}/courses`), ids.seminar)?.excludedDates;
    // 24 March (cancelled) and 7 April (Easter break, after the change to summer time) at 12:00 local.
    expect(excluded).toEqual(['2026-03-24T11:00:00.000Z', '2026-04-07T10:00:00.000Z']);
    const served: string[] = [];
    for (const label of ['2026-W12', '2026-W13', '2026-W14', '2026-W15', '2026-W16', '2026-W17']) {
      const week = (await catalog.json<WeekResponse>(`/week/${label}?courseIds=${ids.course}`)).body;
      served.push(...week.occurrences.filter((occurrence) => occurrence.eventId === ids.seminar).map((occurrence) => occurrence.startTime));
    }
    expect(served).toEqual(['2026-03-17T11:00:00.000Z', '2026-03-31T10:00:00.000Z', '2026-04-14T10:00:00.000Z', '2026-04-21T10:00:00.000Z']);
    expect(byId(await listing(`/semesters/${ids.spring}/courses`), ids.twinA)?.excludedDates).toEqual([]);
  });

  it('expanded like a calendar client, gives exactly the dated occurrences of the room schedules', async () => {
    const entries = await listing(`/semesters/${ids.spring}/courses`);
    for (const room of [ids.room, ids.otherRoom]) {
      const query = 'from=2026-01-01T00:00:00.000Z&to=2027-01-01T00:00:00.000Z';
      const schedule = (await catalog.json<{ data: { courses: RoomScheduleEntry[] } }>(`/rooms/${room}/schedule?${query}`)).body.data.courses;
      for (const entry of entries.filter((candidate) => candidate.room?.id === room)) {
        const served = schedule.filter((occurrence) => occurrence.id === entry.id).map(({ startTime, endTime }) => ({ startTime, endTime }));
        expect(expandAsCalendarClient(entry, TIME_ZONE), entry.id).toEqual(served);
      }
    }
  });
});

describe('/programs/:id/courses lists one entry per event of every semester', () => {
  it('is the union of its semesters, each event once, sorted by first start', async () => {
    const entries = await listing(`/programs/${ids.program}/courses`);
    const semesters = [...(await listing(`/semesters/${ids.spring}/courses`)), ...(await listing(`/semesters/${ids.autumn}/courses`))];
    expect(entries).toEqual(semesters);
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(Object.keys(listingEvents).length);
    expect(byId(entries, ids.autumnSeries)).toMatchObject({ startTime: '2026-10-19T14:00:00.000Z', weekday: 1, excludedDates: [] });
  });
});

describe('/instructors/:id/courses lists one entry per event taught', () => {
  it('has the events taught alone or with others once each, as the semester listing shows them', async () => {
    const { status, body } = await catalog.json<{ instructor: InstructorResource; data: OccurrenceResource[] }>(`/instructors/${ids.assistant}/courses`);
    expect(status).toBe(200);
    expect(body.instructor.id).toBe(ids.assistant);
    const semester = await listing(`/semesters/${ids.spring}/courses`);
    expect(body.data).toEqual(semester.filter((entry) => entry.id === ids.seminar || entry.id === ids.twinB));
    // The assistant teaches the seminar second: the entry still shows its first instructor.
    expect(byId(body.data, ids.seminar)?.instructor?.id).toBe(ids.lecturer);
    const lecturer = (await catalog.json<{ data: OccurrenceResource[] }>(`/instructors/${ids.lecturer}/courses`)).body.data;
    expect(lecturer.map((entry) => entry.id)).toEqual([ids.lateNight, ids.seminar]);
  });
});
