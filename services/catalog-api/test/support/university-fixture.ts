import { randomUUID } from 'node:crypto';
import type { CourseData, EventData, InstructorData, ProgramData, RoomData, SemesterData } from '@timetable/contracts';
import { stateOf, TIME_ZONE } from './catalog-harness.js';

/** A small hand-written university in Europe/Berlin around the DST changes and the 2026/2027 year end. */
export const ids = {
  informatik: randomUUID(),
  archived: randomUUID(),
  maschinenbau: randomUUID(),
  inf1: randomUUID(),
  inf2: randomUUID(),
  mb1: randomUUID(),
  orphan: randomUUID(),
  missingProgram: randomUUID(),
  periodInf1: randomUUID(),
  periodInf2: randomUUID(),
  periodOrphan: randomUUID(),
  mathe: randomUUID(),
  uebung: randomUUID(),
  algorithmen: randomUUID(),
  datenbanken: randomUUID(),
  roomA101: randomUUID(),
  roomHoersaal: randomUUID(),
  roomA102: randomUUID(),
  mueller: randomUUID(),
  schmidt: randomUUID(),
  // events
  matheSpring: randomUUID(),
  uebungOnce: randomUUID(),
  datenbankenOctober: randomUUID(),
  datenbankenFold: randomUUID(),
  matheYearEnd: randomUUID(),
  uebungSundayNight: randomUUID(),
  uebungMondayMidnight: randomUUID(),
  orphanEvent: randomUUID(),
};

const program = (id: string, name: string, shortName: string, degreeType: string, isActive: boolean): ProgramData => ({
  id,
  name,
  shortName,
  degreeType,
  facultyId: 'fb-2',
  isActive,
  upstreamId: 1,
});

const semester = (id: string, programId: string, name: string, number: number, academicPeriodId: string | null): SemesterData => ({
  id,
  programId,
  name,
  number,
  academicPeriodId,
  upstreamId: number,
  planningUnitId: 7,
});

const course = (id: string, name: string, code: string): CourseData => ({
  id,
  name,
  code,
  parentId: null,
  metadata: { credits: 5 },
  programId: ids.informatik,
  semesterId: ids.inf2,
});

const room = (id: string, name: string, building: string): RoomData => ({ id, name, building, campus: 'Nord', capacity: 40, tags: ['beamer'], upstreamId: 3 });

const instructor = (id: string, name: string, email: string): InstructorData => ({ id, name, email, tags: [], upstreamId: 4 });

export function event(overrides: Partial<EventData> & Pick<EventData, 'id' | 'courseId' | 'dtstart'>): EventData {
  return {
    title: 'Vorlesung',
    programId: ids.informatik,
    semesterId: ids.inf2,
    periodId: ids.periodInf2,
    roomIds: [],
    instructorIds: [],
    timeZone: TIME_ZONE,
    durationMinutes: 90,
    recurrenceRule: null,
    exdates: [],
    location: '',
    note: null,
    ...overrides,
  };
}

export const events = {
  // Mondays 10:00 across the spring DST change (29 March 2026): 16, 23, 30 March and 6 April.
  matheSpring: event({
    id: ids.matheSpring,
    courseId: ids.mathe,
    title: 'Mathe V',
    dtstart: '2026-03-16T10:00:00',
    recurrenceRule: 'FREQ=WEEKLY;INTERVAL=1;UNTIL=20260406T080000Z',
    roomIds: [ids.roomA101],
    instructorIds: [ids.mueller],
  }),
  // Two rooms and two instructors: it belongs to each for filters.
  uebungOnce: event({
    id: ids.uebungOnce,
    courseId: ids.uebung,
    dtstart: '2026-03-25T14:00:00',
    roomIds: [ids.roomHoersaal, ids.roomA101],
    instructorIds: [ids.schmidt, ids.mueller],
    location: 'B 2.02, Hörsaal; A 1.01',
  }),
  // No room, no instructor; in 2026-W43 (the 169-hour week).
  datenbankenOctober: event({
    id: ids.datenbankenOctober,
    courseId: ids.datenbanken,
    semesterId: ids.inf1,
    periodId: ids.periodInf1,
    dtstart: '2026-10-23T09:00:00',
    location: 'Online',
  }),
  // 02:30 on 25 October 2026 happens twice in Berlin: the earlier (summer time) instant counts.
  datenbankenFold: event({
    id: ids.datenbankenFold,
    courseId: ids.datenbanken,
    semesterId: ids.inf1,
    periodId: ids.periodInf1,
    dtstart: '2026-10-25T02:30:00',
    roomIds: [ids.roomA102],
  }),
  // Wednesdays 09:00: 30 December 2026 (2026-W53) and 6 January 2027 (2027-W01).
  matheYearEnd: event({
    id: ids.matheYearEnd,
    courseId: ids.mathe,
    dtstart: '2026-12-30T09:00:00',
    recurrenceRule: 'FREQ=WEEKLY;INTERVAL=1;UNTIL=20270106T080000Z',
    roomIds: [ids.roomA102],
    instructorIds: [ids.schmidt],
  }),
  uebungSundayNight: event({ id: ids.uebungSundayNight, courseId: ids.uebung, dtstart: '2027-01-03T23:30:00', durationMinutes: 30 }),
  uebungMondayMidnight: event({ id: ids.uebungMondayMidnight, courseId: ids.uebung, dtstart: '2027-01-04T00:00:00', durationMinutes: 30 }),
  orphanEvent: event({
    id: ids.orphanEvent,
    courseId: ids.datenbanken,
    programId: ids.missingProgram,
    semesterId: ids.orphan,
    periodId: ids.periodOrphan,
    dtstart: '2026-04-01T08:00:00',
  }),
};

export const universityStates = [
  stateOf({ type: 'program', data: program(ids.informatik, 'Informatik', 'INF', 'Bachelor', true) }),
  stateOf({ type: 'program', data: program(ids.archived, 'Alte Informatik', 'AINF', 'Diplom', false) }),
  stateOf({ type: 'program', data: program(ids.maschinenbau, 'Maschinenbau', 'MB', 'Master', true) }),
  stateOf({ type: 'semester', data: semester(ids.inf2, ids.informatik, 'INF 2', 2, ids.periodInf2) }),
  stateOf({ type: 'semester', data: semester(ids.inf1, ids.informatik, 'INF 1', 1, ids.periodInf1) }),
  stateOf({ type: 'semester', data: semester(ids.mb1, ids.maschinenbau, 'MB 1', 1, null) }),
  stateOf({ type: 'semester', data: semester(ids.orphan, ids.missingProgram, 'Gast 1', 1, ids.periodOrphan) }),
  stateOf({ type: 'course', data: course(ids.mathe, 'Mathematik 1', 'MA1') }),
  stateOf({ type: 'course', data: course(ids.uebung, 'Übung, Straße & Café', 'UE2') }),
  stateOf({ type: 'course', data: course(ids.algorithmen, 'Algorithmen', 'ALG') }),
  stateOf({ type: 'course', data: course(ids.datenbanken, 'datenbanken', 'DB-MA') }),
  stateOf({ type: 'room', data: room(ids.roomA101, 'A 1.01', 'A') }),
  stateOf({ type: 'room', data: room(ids.roomHoersaal, 'B 2.02, Hörsaal', 'B') }),
  stateOf({ type: 'room', data: room(ids.roomA102, 'A 1.02', 'A') }),
  stateOf({ type: 'instructor', data: instructor(ids.mueller, 'Prof. Müller', 'mueller@example.edu') }),
  stateOf({ type: 'instructor', data: instructor(ids.schmidt, 'Dr. Schmidt', 'schmidt@example.edu') }),
  ...Object.values(events).map((data) => stateOf({ type: 'event', data })),
];
