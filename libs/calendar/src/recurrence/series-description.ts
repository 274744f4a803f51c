// The shapes exchanged by series detection (sync) and expansion (catalog).

import type { LocalDate, LocalDateTime } from '../local-date-time.js';

/**
 * One event's schedule in the zone's wall-clock time: a one-off (recurrenceRule null, exdates empty) or a
 * weekly series. recurrenceRule is an RFC 5545 RRULE value meant for a DTSTART with TZID, so its UNTIL is
 * the UTC instant of the last occurrence ('FREQ=WEEKLY;INTERVAL=1;UNTIL=20260713T080000Z'). exdates are
 * skipped occurrences, each exactly an occurrence's local start.
 */
export interface SeriesDescription {
  dtstart: LocalDateTime;
  recurrenceRule: string | null;
  exdates: LocalDateTime[];
}

export interface SeriesToExpand extends SeriesDescription {
  durationMinutes: number;
}

/** A dated occurrence: instants, and the local calendar date of its start. */
export interface Occurrence {
  start: Date;
  end: Date;
  localDate: LocalDate;
}

/** Instants [from, to): an occurrence is inside when its start is. */
export interface InstantWindow {
  from: Date;
  to: Date;
}
