/**
 * Property: for generated timetables, expanding every listing entry as a calendar client does (the rrule
 * package from startTime in TIME_ZONE, minus excludedDates) gives exactly the dated occurrences the catalog
 * serves for that event, across the DST changes of 2026. Series come from detectSeries, as sync builds them.
 *
 * Starts lie between 07:00 and 21:45: a first start inside a DST gap has no instant that names its wall-clock
 * time, so no listing (and no DTSTART) could describe such a series; lectures are not held at 02:30.
 */
import { randomUUID } from 'node:crypto';
import { detectSeries } from '@timetable/calendar';
import { addDaysToLocalDate } from '@timetable/calendar/testing';
import type { OccurrenceResource, RoomScheduleEntry } from '@timetable/contracts';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expandAsCalendarClient } from './support/calendar-client-expansion.js';
import { startCatalog, stateOf, TIME_ZONE, type CatalogHarness } from './support/catalog-harness.js';
import { event } from './support/university-fixture.js';

const ROOM = randomUUID();
const COURSE = randomUUID();
const pad = (value: number): string => String(value).padStart(2, '0');

let catalog: CatalogHarness;

/** A weekly slot from February to December 2026 with holes (holidays, cancellations) and stray dates. */
const slotPattern = fc
  .record({
    day: fc.integer({ min: 0, max: 300 }),
    hour: fc.integer({ min: 7, max: 21 }),
    quarter: fc.integer({ min: 0, max: 3 }),
    interval: fc.constantFrom(1, 1, 2),
    length: fc.integer({ min: 1, max: 20 }),
    holes: fc.uniqueArray(fc.integer({ min: 1, max: 19 }), { maxLength: 5 }),
    strays: fc.uniqueArray(fc.integer({ min: -10, max: 30 }), { maxLength: 2 }),
    durationMinutes: fc.constantFrom(45, 90, 120, 180),
  })
  .map(({ day, hour, quarter, interval, length, holes, strays, durationMinutes }) => {
    const date = addDaysToLocalDate('2026-02-01', day);
    const weeks = Array.from({ length }, (_, index) => index * interval).filter((_, index) => !holes.includes(index));
    const starts = [...new Set([...weeks, ...strays])].map((week) => `${addDaysToLocalDate(date, 7 * week)}T${pad(hour)}:${pad(quarter * 15)}:00`);
    return { starts, durationMinutes };
  });

/** Publishes the patterns as one semester's events; answers the semester id and the event ids. */
async function publishSemester(patterns: { starts: string[]; durationMinutes: number }[]): Promise<{ semesterId: string; eventIds: string[] }> {
  const programId = randomUUID();
  const semesterId = randomUUID();
  const periodId = randomUUID();
  const events = patterns.flatMap(({ starts, durationMinutes }) =>
    detectSeries(starts, TIME_ZONE).map((series) =>
      event({ ...series, id: randomUUID(), courseId: COURSE, programId, semesterId, periodId, durationMinutes, roomIds: [ROOM] }),
    ),
  );
  await catalog.publish([
    stateOf({ type: 'semester', data: { id: semesterId, programId, name: 'Generated', number: 1, academicPeriodId: periodId, upstreamId: 1, planningUnitId: 1 } }),
    ...events.map((data) => stateOf({ type: 'event', data })),
  ]);
  return { semesterId, eventIds: events.map((data) => data.id) };
}

async function servedOccurrences(): Promise<RoomScheduleEntry[]> {
  const query = 'from=2025-01-01T00:00:00.000Z&to=2028-01-01T00:00:00.000Z';
  return (await catalog.json<{ data: { courses: RoomScheduleEntry[] } }>(`/rooms/${ROOM}/schedule?${query}`)).body.data.courses;
}

beforeAll(async () => {
  catalog = await startCatalog();
  await catalog.publish([stateOf({ type: 'room', data: { id: ROOM, name: 'P 1', building: 'P', campus: 'Nord', capacity: 10, tags: [], upstreamId: 1 } })]);
});

afterAll(() => catalog.close());

describe('a listing entry expanded as a calendar client does', () => {
  it('gives exactly the dated occurrences the catalog serves for its event', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(slotPattern, { minLength: 1, maxLength: 3 }), async (patterns) => {
        const { semesterId, eventIds } = await publishSemester(patterns);
        const entries = (await catalog.json<{ data: OccurrenceResource[] }>(`/semesters/${semesterId}/courses`)).body.data;
        expect(entries.map((entry) => entry.id).sort()).toEqual([...eventIds].sort());
        const order = entries.map((entry) => `${entry.startTime}|${entry.id}`);
        expect(order).toEqual([...order].sort());
        const served = await servedOccurrences();
        for (const entry of entries) {
          const ofEvent = served.filter((occurrence) => occurrence.id === entry.id).map(({ startTime, endTime }) => ({ startTime, endTime }));
          expect(ofEvent[0]).toEqual({ startTime: entry.startTime, endTime: entry.endTime });
          expect(expandAsCalendarClient(entry, TIME_ZONE), `${entry.recurrenceRule} ${entry.excludedDates.join(',')}`).toEqual(ofEvent);
        }
      }),
      { numRuns: 40 },
    );
  });
});
