/** Deterministic changes to the in-memory university, the way timetables change during a term. */
import { emailOf } from '../generate/generate-lecturers.js';
import { parseDay } from '../generate/day-number.js';
import type { UniversityModel } from '../model/university-model.js';
import type { Lecture, Lecturer, Occurrence, Room } from '../model/types.js';

/** A change that names something that does not exist; the admin route answers 400. */
export class ChurnError extends Error {}

export interface AddOccurrenceArgs {
  lectureId: number;
  puId: number;
  /** `YYYY-MM-DD`, local. */
  date: string;
  /** `HH:MM`, local Europe/Berlin. */
  start: string;
  end: string;
  roomIds?: number[];
  lecturerIds?: number[];
  note?: string;
}

export interface AddLecturerArgs {
  ogIds: number[];
  title: string;
  firstname: string;
  name: string;
  email?: string;
}

export function moveRoom(model: UniversityModel, args: { occurrenceId: number; roomIds: number[] }): Occurrence {
  const occurrence = existingOccurrence(model, args.occurrenceId);
  args.roomIds.forEach((id) => existing(model.rooms, id, 'room'));
  occurrence.roomIds = [...args.roomIds];
  return occurrence;
}

/** Still listed in the feed, with STATUS:CANCELLED. */
export function cancelOccurrence(model: UniversityModel, args: { occurrenceId: number }): Occurrence {
  const occurrence = existingOccurrence(model, args.occurrenceId);
  occurrence.cancelled = true;
  return occurrence;
}

/** Gone from the feed altogether. */
export function removeOccurrence(model: UniversityModel, args: { occurrenceId: number }): void {
  if (!model.removeOccurrence(args.occurrenceId)) throw new ChurnError(`unknown occurrence ${args.occurrenceId}`);
}

export function addOccurrence(model: UniversityModel, args: AddOccurrenceArgs): Occurrence {
  existing(model.lectures, args.lectureId, 'lecture');
  if (!model.planningUnit(args.puId)) throw new ChurnError(`unknown planning unit ${args.puId}`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(args.date)) throw new ChurnError(`not a date: ${args.date}`);
  if (!isTime(args.start) || !isTime(args.end) || args.end <= args.start) {
    throw new ChurnError(`not a time range: ${args.start}-${args.end}`);
  }
  (args.roomIds ?? []).forEach((id) => existing(model.rooms, id, 'room'));
  (args.lecturerIds ?? []).forEach((id) => existing(model.lecturers, id, 'lecturer'));
  const occurrence: Occurrence = {
    id: model.nextId('occurrence'),
    lectureId: args.lectureId,
    puId: args.puId,
    day: parseDay(args.date),
    start: args.start,
    end: args.end,
    roomIds: [...(args.roomIds ?? [])],
    lecturerIds: [...(args.lecturerIds ?? [])],
    cancelled: false,
  };
  if (args.note !== undefined) occurrence.note = args.note;
  model.addOccurrence(occurrence);
  return occurrence;
}

export function renameLecture(
  model: UniversityModel,
  args: { lectureId: number; name?: string; shortname?: string },
): Lecture {
  const lecture = existing(model.lectures, args.lectureId, 'lecture');
  if (args.name !== undefined) lecture.name = args.name;
  if (args.shortname !== undefined) lecture.shortname = args.shortname;
  return lecture;
}

export function renameRoom(model: UniversityModel, args: { roomId: number; shortname?: string; name?: string }): Room {
  const room = existing(model.rooms, args.roomId, 'room');
  if (args.shortname !== undefined) room.shortname = args.shortname;
  if (args.name !== undefined) room.name = args.name;
  return room;
}

export function addLecturer(model: UniversityModel, args: AddLecturerArgs): Lecturer {
  args.ogIds.forEach((id) => existing(model.programs, id, 'program'));
  const lecturer: Lecturer = {
    id: model.nextId('lecturer'),
    title: args.title,
    firstname: args.firstname,
    name: args.name,
    email: args.email ?? emailOf(args.firstname, args.name),
    ogIds: [...args.ogIds],
  };
  model.lecturers.set(lecturer.id, lecturer);
  return lecturer;
}

/** The group vanishes with its own lectures (also from groups that shared them) and their occurrences. */
export function removeGroup(model: UniversityModel, args: { pgid: number }): void {
  existing(model.groups, args.pgid, 'planning group');
  const own = [...model.lectures.values()].filter((lecture) => lecture.pgid === args.pgid);
  for (const lecture of own) model.removeLecture(lecture.id);
  model.groups.delete(args.pgid);
}

function existingOccurrence(model: UniversityModel, id: number): Occurrence {
  const occurrence = model.occurrence(id);
  if (!occurrence) throw new ChurnError(`unknown occurrence ${id}`);
  return occurrence;
}

export function existing<T>(entities: Map<number, T>, id: number, kind: string): T {
  const entity = entities.get(id);
  if (entity === undefined) throw new ChurnError(`unknown ${kind} ${id}`);
  return entity;
}

function isTime(value: string): boolean {
  return /^([01]\d|2[0-3]):[0-5]\d$/.test(value);
}
