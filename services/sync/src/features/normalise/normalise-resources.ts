/** Rooms (getros of every location) and instructors (getles of every program). */
import type { InstructorData, RoomData } from '@timetable/contracts';
import type { LocatedRoom, UpstreamLecturer } from '../read/upstream-types.js';
import { programScope, type NormalisedEntity } from './normalised-entity.js';
import type { UpstreamSnapshot } from '../read/upstream-snapshot.js';
import { instructorIdOf, roomIdOf } from './upstream-ids.js';

/** Room kinds from the upstream name: `Seminarraum *** Raumreservierung über ...` -> ['seminarraum']. */
export function roomTagsOf(upstreamName: string): string[] {
  const kinds = (upstreamName.split('***')[0] ?? '').split(/[/,;&]/);
  return [...new Set(kinds.map((kind) => kind.trim().toLowerCase()).filter((kind) => kind !== ''))];
}

export function normaliseRooms(rooms: LocatedRoom[]): NormalisedEntity[] {
  const seen = new Set<number>();
  return rooms.flatMap((room) => {
    if (seen.has(room.id)) return [];
    seen.add(room.id);
    const data: RoomData = {
      id: roomIdOf(room.id),
      name: room.shortname,
      building: room.bshortname?.trim() || (/^\p{L}+/u.exec(room.shortname)?.[0] ?? ''),
      campus: room.location.name,
      capacity: room.seats ?? 0,
      tags: roomTagsOf(room.name),
      upstreamId: room.id,
    };
    return [{ entityType: 'room' as const, entityId: data.id, data, scopes: [] }];
  });
}

/** "title firstname name", trimmed: the form the feeds' DESCRIPTION uses. */
export function lecturerDisplayName(lecturer: UpstreamLecturer): string {
  return [lecturer.title, lecturer.firstname, lecturer.name].map((part) => part?.trim() ?? '').filter((part) => part !== '').join(' ');
}

function instructorTagsOf(title: string | null | undefined): string[] {
  const tags: string[] = [];
  if (title && /prof/i.test(title)) tags.push('professor');
  if (title && /dr\./i.test(title)) tags.push('doctor');
  return tags;
}

export function normaliseInstructors(upstream: UpstreamSnapshot): NormalisedEntity[] {
  const byId = new Map<number, { lecturer: UpstreamLecturer; ogs: number[] }>();
  for (const [og, lecturers] of upstream.lecturersByProgram) {
    for (const lecturer of lecturers) {
      const entry = byId.get(lecturer.id);
      if (entry) entry.ogs.push(og);
      else byId.set(lecturer.id, { lecturer, ogs: [og] });
    }
  }
  return [...byId.values()].map(({ lecturer, ogs }) => {
    const data: InstructorData = {
      id: instructorIdOf(lecturer.id),
      name: lecturerDisplayName(lecturer),
      email: lecturer.email?.trim() ?? '',
      tags: instructorTagsOf(lecturer.title),
      upstreamId: lecturer.id,
    };
    return { entityType: 'instructor', entityId: data.id, data, scopes: [...new Set(ogs)].sort((a, b) => a - b).map(programScope) };
  });
}
