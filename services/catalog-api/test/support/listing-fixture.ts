import { randomUUID } from 'node:crypto';
import type { EntityState } from '@timetable/contracts';
import { stateOf, TIME_ZONE } from './catalog-harness.js';
import { event } from './university-fixture.js';

/** A program with two semesters whose events exercise the listing rules (Europe/Berlin, spring 2026). */
export const listingIds = {
  program: randomUUID(),
  spring: randomUUID(),
  autumn: randomUUID(),
  springPeriod: randomUUID(),
  autumnPeriod: randomUUID(),
  course: randomUUID(),
  room: randomUUID(),
  otherRoom: randomUUID(),
  lecturer: randomUUID(),
  assistant: randomUUID(),
  seminar: randomUUID(),
  lateNight: randomUUID(),
  autumnSeries: randomUUID(),
  // Two events starting at the same instant: the id decides their order.
  twinA: randomUUID(),
  twinB: randomUUID(),
};

const ids = listingIds;
const inSpring = { programId: ids.program, semesterId: ids.spring, periodId: ids.springPeriod, courseId: ids.course, timeZone: TIME_ZONE };

export const listingEvents = {
  // Tuesdays 12:00 across the DST change of 29 March; 24 March cancelled, 7 April in the Easter break.
  seminar: event({
    ...inSpring,
    id: ids.seminar,
    dtstart: '2026-03-17T12:00:00',
    recurrenceRule: 'FREQ=WEEKLY;INTERVAL=1;UNTIL=20260421T100000Z',
    exdates: ['2026-03-24T12:00:00', '2026-04-07T12:00:00'],
    roomIds: [ids.room],
    instructorIds: [ids.lecturer, ids.assistant],
  }),
  // Monday 00:30 in Berlin is still Sunday in UTC.
  lateNight: event({ ...inSpring, id: ids.lateNight, dtstart: '2026-03-16T00:30:00', durationMinutes: 30, roomIds: [ids.room], instructorIds: [ids.lecturer] }),
  twinA: event({ ...inSpring, id: ids.twinA, dtstart: '2026-03-18T08:00:00', recurrenceRule: 'FREQ=WEEKLY;INTERVAL=2;UNTIL=20260401T060000Z', roomIds: [ids.room] }),
  twinB: event({ ...inSpring, id: ids.twinB, dtstart: '2026-03-18T08:00:00', roomIds: [ids.otherRoom], instructorIds: [ids.assistant] }),
  autumnSeries: event({
    ...inSpring,
    id: ids.autumnSeries,
    semesterId: ids.autumn,
    periodId: ids.autumnPeriod,
    dtstart: '2026-10-19T16:00:00',
    recurrenceRule: 'FREQ=WEEKLY;INTERVAL=1;UNTIL=20261102T150000Z',
    roomIds: [ids.room],
  }),
};

const semester = (id: string, name: string, number: number, academicPeriodId: string): EntityState =>
  stateOf({ type: 'semester', data: { id, programId: ids.program, name, number, academicPeriodId, upstreamId: number, planningUnitId: 9 } });

export const listingStates: EntityState[] = [
  stateOf({ type: 'program', data: { id: ids.program, name: 'Physik', shortName: 'PHY', degreeType: 'Bachelor', facultyId: 'fb-3', isActive: true, upstreamId: 9 } }),
  semester(ids.spring, 'PHY 2', 2, ids.springPeriod),
  semester(ids.autumn, 'PHY 3', 3, ids.autumnPeriod),
  stateOf({ type: 'course', data: { id: ids.course, name: 'Optik', code: 'OPT', parentId: null, metadata: {}, programId: ids.program, semesterId: ids.spring } }),
  stateOf({ type: 'room', data: { id: ids.room, name: 'C 0.01', building: 'C', campus: 'Süd', capacity: 30, tags: [], upstreamId: 31 } }),
  stateOf({ type: 'room', data: { id: ids.otherRoom, name: 'C 0.02', building: 'C', campus: 'Süd', capacity: 30, tags: [], upstreamId: 32 } }),
  stateOf({ type: 'instructor', data: { id: ids.lecturer, name: 'Prof. Weber', email: 'weber@example.edu', tags: [], upstreamId: 41 } }),
  stateOf({ type: 'instructor', data: { id: ids.assistant, name: 'Dr. Braun', email: 'braun@example.edu', tags: [], upstreamId: 42 } }),
  ...Object.values(listingEvents).map((data) => stateOf({ type: 'event', data })),
];
