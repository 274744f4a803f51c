// UTC offsets of IANA zones, computed with Intl and cached per UTC day so that hot loops
// (a sync converts ~100k times) cost a Map lookup instead of an Intl call.

import { MS_PER_DAY } from './local-date-time.js';

/** The offset of one UTC day: `before` until the instant `switchAt`, `after` from then on. */
interface DayOffsets {
  readonly switchAt: number;
  readonly before: number;
  readonly after: number;
}

const MS_PER_SECOND = 1000;
// A bounded cache: 20,000 days is 55 years of a zone, far more than any process touches.
const MAX_CACHED_DAYS_PER_ZONE = 20_000;

const formatters = new Map<string, Intl.DateTimeFormat>();
const dayCaches = new Map<string, Map<number, DayOffsets>>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Offset (wall clock minus UTC, in ms) at a whole-second instant, straight from Intl. */
function exactOffset(instantMs: number, timeZone: string): number {
  const fields: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(instantMs)) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  const wallClock = new Date(0);
  wallClock.setUTCFullYear(fields.year ?? 0, (fields.month ?? 1) - 1, fields.day ?? 1);
  wallClock.setUTCHours(fields.hour ?? 0, fields.minute ?? 0, fields.second ?? 0, 0);
  return wallClock.getTime() - instantMs;
}

/** Zones change offset at most once a day, so a day is described by its first and last second. */
function computeDay(day: number, timeZone: string): DayOffsets {
  let low = day * MS_PER_DAY;
  let high = low + MS_PER_DAY - MS_PER_SECOND;
  const before = exactOffset(low, timeZone);
  const after = exactOffset(high, timeZone);
  if (before === after) return { switchAt: Number.POSITIVE_INFINITY, before, after };
  while (high - low > MS_PER_SECOND) {
    const middle = low + Math.floor((high - low) / 2 / MS_PER_SECOND) * MS_PER_SECOND;
    if (exactOffset(middle, timeZone) === before) low = middle;
    else high = middle;
  }
  return { switchAt: high, before, after };
}

/** The UTC offset in milliseconds (e.g. 3,600,000 for CET) of `timeZone` at the instant `instantMs`. */
export function offsetAt(instantMs: number, timeZone: string): number {
  let days = dayCaches.get(timeZone);
  if (days === undefined) {
    formatterFor(timeZone); // throws a RangeError for an unknown zone before it gets a cache
    days = new Map();
    dayCaches.set(timeZone, days);
  }
  const day = Math.floor(instantMs / MS_PER_DAY);
  let offsets = days.get(day);
  if (offsets === undefined) {
    if (days.size >= MAX_CACHED_DAYS_PER_ZONE) days.clear();
    offsets = computeDay(day, timeZone);
    days.set(day, offsets);
  }
  return instantMs < offsets.switchAt ? offsets.before : offsets.after;
}
