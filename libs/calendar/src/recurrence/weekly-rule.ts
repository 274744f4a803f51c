// Writing the weekly RRULE of a detected series, and reading its UNTIL back as wall-clock time.

import { formatUtcBasic } from '../utc-basic-format.js';
import { instantMsToFloatingMs } from '../zoned-time.js';

const UTC_UNTIL = /(?:^|;)UNTIL=[0-9T]+Z(?:;|$)/i;

/** 'FREQ=WEEKLY;INTERVAL=2;UNTIL=20260713T080000Z': UNTIL is the UTC instant of the last occurrence. */
export function formatWeeklyRule(intervalWeeks: number, lastStart: Date): string {
  return `FREQ=WEEKLY;INTERVAL=${intervalWeeks};UNTIL=${formatUtcBasic(lastStart)}`;
}

/**
 * rrule parses every UNTIL digit by digit as if it were UTC; for floating expansion a UTC UNTIL (the RFC
 * form next to a TZID DTSTART) must become wall-clock time in the zone, a floating one is already.
 */
export function untilToFloatingMs(rule: string, parsedUntil: Date, timeZone: string): number {
  return UTC_UNTIL.test(rule) ? instantMsToFloatingMs(parsedUntil.getTime(), timeZone) : parsedUntil.getTime();
}
