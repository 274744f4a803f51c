/**
 * The simulator's ground truth in the catalog's terms: every expected occurrence of a group's feed as the
 * instants, names and ids the catalog should serve. Entries are compared as sorted key strings, so a
 * failing test shows exactly which occurrences are missing or extra.
 */
import { localToInstant } from '@timetable/calendar';
import type { OccurrenceResource, WeekOccurrenceResource } from '@timetable/contracts';
import type { ExpectedOccurrence, Simulator } from '@timetable/starplan-sim';
import { courseIdOf, roomIdOf, semesterIdOf } from '@timetable/sync/testing';
import { expandAsCalendarClient } from './calendar-client-expansion.js';
import { TIME_ZONE } from './real-sync-system.js';

export interface TruthOccurrence {
  pgid: number;
  semesterId: string;
  courseId: string;
  occurrenceId: number;
  lectureId: number;
  /** Local wall-clock start, `YYYY-MM-DDTHH:MM:SS`. */
  localStart: string;
  start: Date;
  end: Date;
  /** The course (lecture) name: the occurrence summary (docs/api.md, "Choices where the interface leaves room"). */
  summary: string;
  code: string;
  room: { id: string; name: string; building: string } | null;
  instructorName: string | null;
}

export function truthOfGroup(simulator: Simulator, pgid: number): TruthOccurrence[] {
  const model = simulator.model;
  const roomsByShortname = new Map([...model.rooms.values()].map((room) => [room.shortname, room]));
  return simulator.expectedOccurrences(model.currentPuId, pgid).map((expected: ExpectedOccurrence) => {
    const room = expected.roomShortnames[0] === undefined ? undefined : roomsByShortname.get(expected.roomShortnames[0]);
    return {
      pgid,
      semesterId: semesterIdOf(pgid),
      courseId: courseIdOf(expected.lectureId),
      occurrenceId: expected.occurrenceId,
      lectureId: expected.lectureId,
      localStart: expected.start,
      start: localToInstant(expected.start, TIME_ZONE),
      end: localToInstant(expected.end, TIME_ZONE),
      summary: expected.lectureName,
      code: expected.summary,
      room: room ? { id: roomIdOf(room.id), name: room.shortname, building: room.bshortname } : null,
      instructorName: expected.lecturerNames[0] ?? null,
    };
  });
}

/** Every group's expected occurrences of the current term (a shared lecture appears once per listing group). */
export function truthOfTerm(simulator: Simulator): TruthOccurrence[] {
  return [...simulator.model.groups.keys()].flatMap((pgid) => truthOfGroup(simulator, pgid));
}

/** Local start date within [firstDay, lastDay] (`YYYY-MM-DD`, inclusive). */
export function onLocalDays(truth: TruthOccurrence[], firstDay: string, lastDay: string): TruthOccurrence[] {
  return truth.filter((occurrence) => {
    const day = occurrence.localStart.slice(0, 10);
    return day >= firstDay && day <= lastDay;
  });
}

export function listingKeyOfTruth(occurrence: TruthOccurrence): string {
  const room = occurrence.room ? `${occurrence.room.id}/${occurrence.room.name}/${occurrence.room.building}` : '-';
  return [occurrence.start.toISOString(), occurrence.end.toISOString(), occurrence.courseId, occurrence.summary, occurrence.code, room, occurrence.instructorName ?? '-'].join('|');
}

export function listingKeyOf(occurrence: OccurrenceResource): string {
  const room = occurrence.room ? `${occurrence.room.id}/${occurrence.room.name}/${occurrence.room.building}` : '-';
  return [occurrence.startTime, occurrence.endTime, occurrence.course.id, occurrence.summary, occurrence.course.code, room, occurrence.instructor?.name ?? '-'].join('|');
}

export function weekKeyOfTruth(occurrence: TruthOccurrence): string {
  const minutes = (occurrence.end.getTime() - occurrence.start.getTime()) / 60_000;
  return [occurrence.start.toISOString(), minutes, occurrence.courseId, occurrence.semesterId, occurrence.summary].join('|');
}

export function weekKeyOf(occurrence: WeekOccurrenceResource): string {
  return [occurrence.startTime, occurrence.durationMin, occurrence.originalEvent.courseId, occurrence.originalEvent.semesterId, occurrence.originalEvent.title].join('|');
}

export function feedKeyOfTruth(occurrence: TruthOccurrence): string {
  return [occurrence.start.toISOString(), occurrence.end.toISOString(), occurrence.summary].join('|');
}

/** The dated occurrences a calendar client makes of listing entries: each entry once per expanded start. */
export function expandListing(entries: readonly OccurrenceResource[]): OccurrenceResource[] {
  return entries.flatMap((entry) => expandAsCalendarClient(entry, TIME_ZONE).map((occurrence) => ({ ...entry, ...occurrence })));
}

/**
 * A future occurrence of the course strictly inside a served series (earlier and later occurrences of the
 * same event exist), with its event id: changing it leaves the series, its id and its end in place, so a
 * cancellation becomes one of its excludedDates.
 */
export function futureSeriesMember(
  truth: TruthOccurrence[],
  served: OccurrenceResource[],
  courseId: string,
  now: Date,
): (TruthOccurrence & { eventId: string }) | undefined {
  const startsOf = new Map<string, string[]>();
  for (const occurrence of served) startsOf.set(occurrence.id, [...(startsOf.get(occurrence.id) ?? []), occurrence.startTime]);
  const candidates = truth
    .filter((occurrence) => occurrence.courseId === courseId && occurrence.start > now)
    .flatMap((occurrence) => {
      const match = served.find((entry) => entry.course.id === courseId && entry.startTime === occurrence.start.toISOString());
      const starts = match ? (startsOf.get(match.id) ?? []) : [];
      const inside = match !== undefined && starts.some((start) => start < match.startTime) && starts.some((start) => start > match.startTime);
      return inside ? [{ ...occurrence, eventId: match.id }] : [];
    });
  return candidates[Math.floor(candidates.length / 2)];
}

export const sortedKeys = <T>(items: readonly T[], key: (item: T) => string): string[] => items.map(key).sort();
