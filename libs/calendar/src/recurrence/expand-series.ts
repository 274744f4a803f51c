// Series expansion in floating wall-clock time, converted explicitly to instants in the zone.
// rrule runs on UTC-as-floating Dates and never sees a tzid: its tzid support depends on the process TZ
// and is about 40 times slower.

import rrulePackage from 'rrule';
import {
  MS_PER_DAY,
  MS_PER_MINUTE,
  floatingMsToLocalDate,
  localDateTimeToFloatingMs,
} from '../local-date-time.js';
import { floatingMsToInstantMs, instantMsToFloatingMs } from '../zoned-time.js';
import type { InstantWindow, Occurrence, SeriesDescription, SeriesToExpand } from './series-description.js';
import { isPlainWeekly, plainWeeklyStarts, type FloatingBounds } from './plain-weekly.js';
import { untilToFloatingMs } from './weekly-rule.js';

// rrule ships a UMD bundle to Node's ESM loader, so only its default export exists at run time.
const { RRule } = rrulePackage;

function floatingStarts(series: SeriesDescription, timeZone: string, window: InstantWindow | undefined): number[] {
  const dtstart = localDateTimeToFloatingMs(series.dtstart);
  if (series.recurrenceRule === null) return [dtstart];
  const parsed = RRule.parseString(series.recurrenceRule);
  const bounds: FloatingBounds = {
    until: parsed.until ? untilToFloatingMs(series.recurrenceRule, parsed.until, timeZone) : null,
    count: parsed.count ?? null,
    // A day of margin covers any offset change; the caller's exact test on instants follows.
    from: window === undefined ? null : instantMsToFloatingMs(window.from.getTime(), timeZone) - MS_PER_DAY,
    to: window === undefined ? null : instantMsToFloatingMs(window.to.getTime(), timeZone) + MS_PER_DAY,
  };
  if (parsed.interval !== undefined && !(Number.isInteger(parsed.interval) && parsed.interval >= 1)) {
    throw new RangeError(`Invalid INTERVAL: ${series.recurrenceRule}`);
  }
  if (bounds.until === null && bounds.count === null && bounds.to === null) {
    throw new RangeError(`Unbounded recurrence needs a window: ${series.recurrenceRule}`);
  }
  if (isPlainWeekly(parsed)) return plainWeeklyStarts(dtstart, parsed.interval ?? 1, bounds);
  const until = bounds.until === null ? null : new Date(bounds.until);
  const rule = new RRule({ ...parsed, dtstart: new Date(dtstart), tzid: null, until }, true);
  const dates =
    bounds.from === null || bounds.to === null ? rule.all() : rule.between(new Date(bounds.from), new Date(bounds.to), true);
  return dates.map((date) => date.getTime());
}

/**
 * The occurrences of a series in `timeZone`, sorted by start, optionally only those starting in
 * [window.from, window.to). EXDATEs remove the occurrence with exactly that local start. Local times in a
 * DST gap or fold follow the rule of zoned-time.ts. The end is the wall-clock end (local start plus
 * durationMinutes) as an instant, so a 90-minute lecture is 10:00-11:30 on every date; an event spanning
 * a DST change is an hour shorter or longer in real time, and never ends before it starts.
 */
export function expandSeries(series: SeriesToExpand, timeZone: string, window?: InstantWindow): Occurrence[] {
  if (!Number.isFinite(series.durationMinutes) || series.durationMinutes < 0) {
    throw new RangeError(`Invalid durationMinutes: ${series.durationMinutes}`);
  }
  const excluded = new Set(series.exdates.map(localDateTimeToFloatingMs));
  const occurrences: Occurrence[] = [];
  for (const floating of floatingStarts(series, timeZone, window)) {
    if (excluded.has(floating)) continue;
    const start = floatingMsToInstantMs(floating, timeZone);
    if (window !== undefined && (start < window.from.getTime() || start >= window.to.getTime())) continue;
    const end = Math.max(start, floatingMsToInstantMs(floating + series.durationMinutes * MS_PER_MINUTE, timeZone));
    occurrences.push({ start: new Date(start), end: new Date(end), localDate: floatingMsToLocalDate(floating) });
  }
  return occurrences.sort((a, b) => a.start.getTime() - b.start.getTime());
}

/**
 * The instants the rule would produce but its EXDATEs remove (holidays, cancellations), sorted: what a
 * client expanding the rule from DTSTART;TZID needs as exclusions. An EXDATE the rule never produces
 * removes nothing and is not listed.
 */
export function excludedStarts(series: SeriesDescription, timeZone: string): Date[] {
  if (series.recurrenceRule === null || series.exdates.length === 0) return [];
  const excluded = [...new Set(series.exdates.map(localDateTimeToFloatingMs))].sort((a, b) => a - b);
  const first = floatingMsToInstantMs(excluded[0] ?? 0, timeZone);
  const last = floatingMsToInstantMs(excluded.at(-1) ?? 0, timeZone);
  // Bounded by the EXDATEs themselves, so an open-ended rule needs no horizon here.
  const produced = new Set(floatingStarts(series, timeZone, { from: new Date(first), to: new Date(last + 1) }));
  return excluded.filter((floating) => produced.has(floating)).map((floating) => new Date(floatingMsToInstantMs(floating, timeZone)));
}
