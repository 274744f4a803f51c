import type { EventData } from '@timetable/contracts';
import { expandSeries, localDateOf, localToInstant } from '@timetable/calendar';
import type { Row } from './entity-rows.js';

// A rule without UNTIL or COUNT never ends; such a series is materialised this far past its start.
const OPEN_ENDED_HORIZON_MS = 2 * 366 * 86_400_000;
const BOUNDED_RULE = /(^|;)\s*(UNTIL|COUNT)=/i;

/**
 * The materialised occurrence rows of one event, expanded in the event's own zone. local_date is the
 * start's calendar date in the service zone, which names weeks, UIDs and occurrence dates.
 */
export function occurrenceRowsOf(event: EventData, serviceTimeZone: string): Row[] {
  const series = {
    dtstart: event.dtstart,
    recurrenceRule: event.recurrenceRule,
    exdates: event.exdates,
    durationMinutes: event.durationMinutes,
  };
  const openEnded = event.recurrenceRule !== null && !BOUNDED_RULE.test(event.recurrenceRule);
  const window = openEnded ? openEndedWindow(event) : undefined;
  return expandSeries(series, event.timeZone, window).map((occurrence) => ({
    event_id: event.id,
    start_time: occurrence.start,
    end_time: occurrence.end,
    local_date: localDateOf(occurrence.start, serviceTimeZone),
    semester_id: event.semesterId,
    period_id: event.periodId,
    course_id: event.courseId,
    first_room_id: event.roomIds[0] ?? null,
    first_instructor_id: event.instructorIds[0] ?? null,
  }));
}

function openEndedWindow(event: EventData): { from: Date; to: Date } {
  const from = localToInstant(event.dtstart, event.timeZone);
  return { from, to: new Date(from.getTime() + OPEN_ENDED_HORIZON_MS) };
}

/** Link rows keeping the event's order, so "first room" and "first instructor" stay the upstream's first. */
export function linkRowsOf(eventId: string, ids: readonly string[], column: 'room_id' | 'instructor_id'): Row[] {
  return [...new Set(ids)].map((id, position) => ({ event_id: eventId, [column]: id, position }));
}
