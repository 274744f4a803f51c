/** Builds the whole demo university from a seed; the same seed and date give byte-identical data. */
import { UniversityModel } from '../model/university-model.js';
import type { DayNumber, Lecturer, Occurrence, Program, Room } from '../model/types.js';
import { generateLecturers } from './generate-lecturers.js';
import { generateLectures } from './generate-lectures.js';
import { generateGroupsOf, generatePrograms } from './generate-programs.js';
import { generateLocations, generateRooms } from './generate-rooms.js';
import { planningUnitsAround } from './planning-units.js';
import { Random } from './random.js';
import { scheduleGroup, type ScheduleResources } from './schedule-group.js';

export interface GenerateOptions {
  seed: number;
  scale: number;
  today: DayNumber;
}

const BASE_COUNTS = { programs: 12, lectures: 300, rooms: 80, lecturers: 150 };

export function generateUniversity(options: GenerateOptions): UniversityModel {
  const count = (base: number) => Math.max(1, Math.round(base * options.scale));
  // Separate streams per concern: changing one part of the generator does not reshuffle the others.
  const random = new Random(options.seed);
  const locations = generateLocations();
  const rooms = generateRooms(random.fork(1), locations, count(BASE_COUNTS.rooms));
  const programs = generatePrograms(locations, count(BASE_COUNTS.programs));
  const groups = programs.flatMap((program, index) => generateGroupsOf(program, 13_000 + index * 10));
  const lectures = generateLectures(random.fork(3), groups, count(BASE_COUNTS.lectures), 1_000);
  const lecturers = generateLecturers(random.fork(4), programs, count(BASE_COUNTS.lecturers));
  const planningUnits = planningUnitsAround(options.today);

  let lastOccurrenceId = 0;
  const resources = scheduleResources(rooms, lecturers, () => (lastOccurrenceId += 1));
  const programsById = new Map(programs.map((program) => [program.id, program]));
  const lecturesByGroup = groupBy(lectures, (lecture) => lecture.pgid);
  const occurrences: Occurrence[] = [];
  for (const unit of planningUnits) {
    const termRandom = new Random(options.seed ^ Math.imul(unit.id, 0x9e3779b1));
    for (const group of groups) {
      const program = programsById.get(group.ogId) as Program;
      const own = lecturesByGroup.get(group.id) ?? [];
      occurrences.push(...scheduleGroup(termRandom, { unit, program }, own, resources));
    }
  }
  return new UniversityModel({
    planningUnits,
    currentPuId: planningUnits[1]?.id ?? 0,
    locations,
    rooms,
    programs,
    groups,
    lectures,
    lecturers,
    occurrences,
  });
}

export function scheduleResources(
  rooms: Iterable<Room>,
  lecturers: Iterable<Lecturer>,
  nextOccurrenceId: () => number,
): ScheduleResources {
  const roomsByLocation = groupBy(rooms, (room) => room.locationId);
  const memberships = [...lecturers].flatMap((lecturer) => lecturer.ogIds.map((ogId) => ({ ogId, lecturer })));
  const lecturersByProgram = new Map(
    [...groupBy(memberships, (entry) => entry.ogId)].map(([ogId, entries]) => [ogId, entries.map((entry) => entry.lecturer)]),
  );
  return { roomsByLocation, lecturersByProgram, nextOccurrenceId };
}

/** Map.groupBy arrives in Node 21; this runs on 20. */
function groupBy<T, K>(items: Iterable<T>, keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const list = groups.get(key);
    if (list) list.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}
