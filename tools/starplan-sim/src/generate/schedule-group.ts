/**
 * One planning group's timetable in one term: weekly (some biweekly) series on fixed slots, skipping
 * holidays, a few occurrences cancelled in advance, and one-off exams at the end of the lecture period.
 */
import type { Lecture, Lecturer, Occurrence, PlanningUnit, Program, Room } from '../model/types.js';
import { mondayOf, weekdayOf } from './day-number.js';
import type { Random } from './random.js';

export const SLOTS: readonly (readonly [string, string])[] = [
  ['08:00', '09:30'],
  ['09:45', '11:15'],
  ['11:30', '13:00'],
  ['14:00', '15:30'],
  ['15:45', '17:15'],
];
const EXAM_SLOTS: readonly (readonly [string, string])[] = [
  ['08:30', '10:00'],
  ['10:30', '12:00'],
  ['13:30', '15:00'],
];
const EXAM_WINDOW_DAYS = 10;

export interface ScheduleResources {
  roomsByLocation: Map<number, Room[]>;
  lecturersByProgram: Map<number, Lecturer[]>;
  nextOccurrenceId: () => number;
}

/** A planning group in one term, and the program it belongs to (whose campus and lecturers it uses). */
export interface GroupTerm {
  unit: PlanningUnit;
  program: Program;
}

/** One meeting of a series: its day, who and where, and whether it was cancelled in advance. */
interface Meeting {
  day: number;
  roomIds: number[];
  lecturerIds: number[];
  cancelled: boolean;
}

interface Series {
  lectureId: number;
  weekday: number;
  start: string;
  end: string;
  interval: 1 | 2;
  offset: number;
}

export function scheduleGroup(random: Random, group: GroupTerm, lectures: Lecture[], resources: ScheduleResources): Occurrence[] {
  const { unit, program } = group;
  const occurrences: Occurrence[] = [];
  const freeCells = random.sample(
    Array.from({ length: 5 * SLOTS.length }, (_, cell) => cell),
    5 * SLOTS.length,
  );
  for (const lecture of lectures) {
    if (random.chance(0.05)) continue;
    const seriesCount = random.chance(0.2) ? 2 : 1;
    for (let index = 0; index < seriesCount; index += 1) {
      const cell = freeCells.pop();
      if (cell === undefined) break;
      const series = seriesAt(random, lecture.id, cell);
      const roomIds = pickRooms(random, program, resources);
      const lecturerIds = pickLecturers(random, program, resources);
      for (const day of seriesDays(unit, series)) {
        occurrences.push(occurrence(resources, unit, series, { day, roomIds, lecturerIds, cancelled: random.chance(0.01) }));
      }
    }
    if (random.chance(0.3)) occurrences.push(exam(random, group, lecture.id, resources));
  }
  return occurrences;
}

function seriesAt(random: Random, lectureId: number, cell: number): Series {
  const slot = cell % SLOTS.length;
  const [start, singleEnd] = SLOTS[slot] ?? ['08:00', '09:30'];
  // Some practicals take two slots in a row (e.g. 08:00-11:15).
  const double = slot !== 2 && slot < SLOTS.length - 1 && random.chance(0.06);
  const end = double ? (SLOTS[slot + 1]?.[1] ?? singleEnd) : singleEnd;
  const interval = random.chance(0.15) ? 2 : 1;
  return { lectureId, weekday: Math.floor(cell / SLOTS.length), start, end, interval, offset: random.int(0, 1) };
}

function seriesDays(unit: PlanningUnit, series: Series): number[] {
  const days: number[] = [];
  const firstMonday = mondayOf(unit.lectureStart);
  for (let monday = firstMonday, week = 0; monday <= unit.lectureEnd; monday += 7, week += 1) {
    const day = monday + series.weekday;
    if (day < unit.lectureStart || day > unit.lectureEnd || isHoliday(unit, day)) continue;
    if (series.interval === 2 && week % 2 !== series.offset) continue;
    days.push(day);
  }
  return days;
}

export function isHoliday(unit: PlanningUnit, day: number): boolean {
  return unit.holidays.some((holiday) => day >= holiday.from && day <= holiday.to);
}

function exam(random: Random, { unit, program }: GroupTerm, lectureId: number, resources: ScheduleResources): Occurrence {
  let day = unit.lectureEnd - random.int(0, EXAM_WINDOW_DAYS - 1);
  while (weekdayOf(day) > 4 || isHoliday(unit, day)) day -= 1;
  const [start, end] = random.pick(EXAM_SLOTS);
  const series: Series = { lectureId, weekday: weekdayOf(day), start, end, interval: 1, offset: 0 };
  const roomIds = pickRooms(random, program, resources).slice(0, 1);
  const lecturerIds = pickLecturers(random, program, resources).slice(0, 1);
  return occurrence(resources, unit, series, { day, roomIds, lecturerIds, cancelled: false });
}

function occurrence(resources: ScheduleResources, unit: PlanningUnit, series: Series, meeting: Meeting): Occurrence {
  const { lectureId, start, end } = series;
  const { day, roomIds, lecturerIds, cancelled } = meeting;
  return { id: resources.nextOccurrenceId(), lectureId, puId: unit.id, day, start, end, roomIds, lecturerIds, cancelled };
}

/** Usually one room on the program's campus, sometimes two, sometimes none. */
export function pickRooms(random: Random, program: Program, resources: ScheduleResources): number[] {
  const rooms = resources.roomsByLocation.get(program.locationId) ?? [];
  const roll = random.next();
  const count = roll < 0.07 ? 0 : roll < 0.15 ? 2 : 1;
  return random.sample(rooms, count).map((room) => room.id);
}

/** Usually one lecturer of the program, sometimes two, sometimes none. */
export function pickLecturers(random: Random, program: Program, resources: ScheduleResources): number[] {
  const lecturers = resources.lecturersByProgram.get(program.id) ?? [];
  const roll = random.next();
  const count = roll < 0.08 ? 0 : roll < 0.25 ? 2 : 1;
  return random.sample(lecturers, count).map((lecturer) => lecturer.id);
}
