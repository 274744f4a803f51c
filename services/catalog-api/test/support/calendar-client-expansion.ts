/**
 * What a calendar client makes of a listing entry: DTSTART;TZID=<zone> at the wall-clock time of startTime,
 * the RRULE expanded by the rrule package, EXDATEs removed, and every instance as long as the first.
 * Deliberately independent of @timetable/calendar: wall-clock conversions use Intl only.
 */
import type { OccurrenceResource } from '@timetable/contracts';
import rrulePackage from 'rrule';

const { RRule } = rrulePackage;

export interface ClientOccurrence {
  startTime: string;
  endTime: string;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    const numeric = '2-digit' as const;
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: numeric, day: numeric, hour: numeric, minute: numeric, second: numeric });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The wall clock in the zone at an instant, as a Date whose UTC fields carry it (rrule's floating form). */
function wallClockOf(instant: Date, timeZone: string): Date {
  const parts = Object.fromEntries(formatterOf(timeZone).formatToParts(instant).map((part) => [part.type, Number(part.value)]));
  return new Date(Date.UTC(parts.year ?? 0, (parts.month ?? 1) - 1, parts.day ?? 1, parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0));
}

/** The instant at which the zone's wall clock shows `wallClock` (unambiguous times only). */
function instantOf(wallClock: Date, timeZone: string): Date {
  let guess = wallClock.getTime();
  for (let round = 0; round < 3; round++) guess = wallClock.getTime() - (wallClockOf(new Date(guess), timeZone).getTime() - guess);
  return new Date(guess);
}

export function expandAsCalendarClient(entry: OccurrenceResource, timeZone: string): ClientOccurrence[] {
  const start = new Date(entry.startTime);
  const durationMs = Date.parse(entry.endTime) - start.getTime();
  const starts: Date[] = [start];
  if (entry.recurrenceRule !== null) {
    const options = RRule.parseString(entry.recurrenceRule);
    // UNTIL is a UTC instant (RFC 5545 with a TZID DTSTART); in floating form it is its wall-clock time.
    const until = options.until ? wallClockOf(options.until, timeZone) : null;
    const rule = new RRule({ ...options, dtstart: wallClockOf(start, timeZone), until, tzid: null });
    starts.splice(0, 1, ...rule.all().map((wallClock) => instantOf(wallClock, timeZone)));
  }
  const excluded = new Set(entry.excludedDates);
  return starts
    .map((instant) => instant.toISOString())
    .filter((iso) => !excluded.has(iso))
    .map((iso) => ({ startTime: iso, endTime: new Date(Date.parse(iso) + durationMs).toISOString() }));
}
