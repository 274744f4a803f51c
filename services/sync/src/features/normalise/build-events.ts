/**
 * A group's feed (one VEVENT per occurrence) becomes events: occurrences that share course, weekday, local
 * start and end, rooms, instructors and note form a group; detectSeries turns each group into RRULE pieces.
 */
import { detectSeries } from '@timetable/calendar';
import type { EventData } from '@timetable/contracts';
import type { FeedOccurrence } from '../validate/feed-occurrence.js';
import type { UpstreamLecture, UpstreamPlanningGroup } from '../read/upstream-types.js';
import { pairScope, programScope, type NormalisedEntity } from './normalised-entity.js';
import { academicPeriodIdOf, courseIdOf, eventIdOf, instructorIdOf, programIdOf, roomIdOf, semesterIdOf } from './upstream-ids.js';
import { LectureLookup, referenceKey, type NameResolver, type Reference } from './resolve-references.js';

export interface GroupFeed {
  pu: number;
  og: number;
  group: UpstreamPlanningGroup;
  occurrences: readonly FeedOccurrence[];
}

export interface Lookups {
  rooms: NameResolver;
  lecturers: NameResolver;
}

interface SlotGroup {
  key: string;
  lecture: UpstreamLecture;
  sample: FeedOccurrence;
  rooms: Reference[];
  lecturers: Reference[];
  starts: string[];
}

const floatingMs = (local: string): number => Date.parse(`${local}Z`);

/** Events of one group feed, and how many occurrences named no lecture of the group (skipped). */
export function buildEvents(feed: GroupFeed, lookups: Lookups): { events: NormalisedEntity[]; unmatched: number } {
  const lectures = new LectureLookup(feed.group.lectures);
  const groups = new Map<string, SlotGroup>();
  let unmatched = 0;
  for (const occurrence of feed.occurrences) {
    const lecture = lectures.resolve(occurrence);
    const durationMinutes = (floatingMs(occurrence.end) - floatingMs(occurrence.start)) / 60_000;
    if (!lecture || !(durationMinutes > 0)) {
      unmatched += 1;
      continue;
    }
    const rooms = lookups.rooms.resolve(occurrence.roomShortnames);
    const lecturers = lookups.lecturers.resolve(occurrence.lecturerNames);
    const key = [
      lecture.id,
      new Date(floatingMs(occurrence.start)).getUTCDay(),
      occurrence.start.slice(11),
      occurrence.end.slice(11),
      durationMinutes,
      referenceKey(rooms),
      referenceKey(lecturers),
      occurrence.timeZone,
      JSON.stringify(occurrence.note),
    ].join('|');
    const group = groups.get(key);
    if (group) group.starts.push(occurrence.start);
    else groups.set(key, { key, lecture, sample: occurrence, rooms, lecturers, starts: [occurrence.start] });
  }
  return { events: [...groups.values()].flatMap((group) => seriesEvents(feed, group)), unmatched };
}

function seriesEvents(feed: GroupFeed, group: SlotGroup): NormalisedEntity[] {
  const { sample } = group;
  const durationMinutes = Math.round((floatingMs(sample.end) - floatingMs(sample.start)) / 60_000);
  return detectSeries(group.starts, sample.timeZone).map((piece) => {
    const data: EventData = {
      id: eventIdOf(feed.group.id, `${group.key}|${piece.dtstart}`),
      title: group.lecture.name,
      courseId: courseIdOf(group.lecture.id),
      programId: programIdOf(feed.og),
      semesterId: semesterIdOf(feed.group.id),
      periodId: academicPeriodIdOf(feed.pu, feed.group.id),
      roomIds: group.rooms.flatMap((room) => (room.upstreamId === null ? [] : [roomIdOf(room.upstreamId)])),
      instructorIds: group.lecturers.flatMap((lecturer) => (lecturer.upstreamId === null ? [] : [instructorIdOf(lecturer.upstreamId)])),
      timeZone: sample.timeZone,
      dtstart: piece.dtstart,
      durationMinutes,
      recurrenceRule: piece.recurrenceRule,
      exdates: piece.exdates,
      location: sample.roomShortnames.join(', '),
      note: sample.note,
    };
    return { entityType: 'event', entityId: data.id, data, scopes: [programScope(feed.og), pairScope(feed.group.id)] };
  });
}
