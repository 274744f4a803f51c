// Conversions between instants and wall-clock times in an IANA zone.
//
// Rule for wall-clock times that do not map to exactly one instant (the same as Temporal's
// 'compatible' disambiguation and RFC 5545 section 3.3.5):
// - a time in a spring-forward gap is moved forward by the length of the gap
//   (02:30 on 2026-03-29 in Europe/Berlin is read as 03:30 CEST = 01:30Z);
// - a time that occurs twice at a fall-back is the earlier instant, the one still in summer time
//   (02:30 on 2026-10-25 in Europe/Berlin is 02:30 CEST = 00:30Z).

import {
  MS_PER_DAY,
  floatingMsToLocalDateTime,
  localDateTimeToFloatingMs,
  type LocalDate,
  type LocalDateTime,
} from './local-date-time.js';
import { offsetAt } from './zone-offset.js';

/** The instant of a wall-clock value given as floating milliseconds, by the rule above. */
export function floatingMsToInstantMs(floatingMs: number, timeZone: string): number {
  // Every real offset lies within +-14 h, so the offsets a day either side bracket the answer.
  const offsetBefore = offsetAt(floatingMs - MS_PER_DAY, timeZone);
  const offsetAfter = offsetAt(floatingMs + MS_PER_DAY, timeZone);
  if (offsetBefore === offsetAfter) return floatingMs - offsetBefore;
  const withBefore = floatingMs - offsetBefore;
  const withAfter = floatingMs - offsetAfter;
  const beforeValid = offsetAt(withBefore, timeZone) === offsetBefore;
  const afterValid = offsetAt(withAfter, timeZone) === offsetAfter;
  if (beforeValid && afterValid) return Math.min(withBefore, withAfter);
  if (afterValid) return withAfter;
  // Valid with the old offset, or in the gap: reading a gap time with the pre-transition offset
  // lands exactly the gap's length later on the new wall clock.
  return withBefore;
}

/** Wall-clock floating milliseconds of an instant in `timeZone`. */
export function instantMsToFloatingMs(instantMs: number, timeZone: string): number {
  return instantMs + offsetAt(instantMs, timeZone);
}

/** The instant at which the wall clock in `timeZone` shows `local` (see the gap/fold rule above). */
export function localToInstant(local: LocalDateTime, timeZone: string): Date {
  return new Date(floatingMsToInstantMs(localDateTimeToFloatingMs(local), timeZone));
}

/** What the wall clock in `timeZone` shows at `instant`, to the second (milliseconds are dropped). */
export function instantToLocal(instant: Date, timeZone: string): LocalDateTime {
  return floatingMsToLocalDateTime(instantMsToFloatingMs(instant.getTime(), timeZone));
}

/** The calendar date in `timeZone` at `instant`. */
export function localDateOf(instant: Date, timeZone: string): LocalDate {
  return instantToLocal(instant, timeZone).slice(0, 10);
}
