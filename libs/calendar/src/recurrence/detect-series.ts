// Series detection: from the single occurrences the upstream lists to a few RRULE descriptions.

import {
  MS_PER_WEEK,
  floatingMsToLocalDateTime,
  localDateTimeToFloatingMs,
  type LocalDateTime,
} from '../local-date-time.js';
import { floatingMsToInstantMs } from '../zoned-time.js';
import { segmentWeeks, type WeekRun } from './segment-weeks.js';
import type { SeriesDescription } from './series-description.js';
import { formatWeeklyRule } from './weekly-rule.js';

// Starts at the same weekday and time of day are whole weeks apart in floating time.
function groupByWeeklySlot(starts: readonly LocalDateTime[]): Map<number, number[]> {
  const slots = new Map<number, number[]>();
  for (const floatingMs of new Set(starts.map(localDateTimeToFloatingMs))) {
    const slot = ((floatingMs % MS_PER_WEEK) + MS_PER_WEEK) % MS_PER_WEEK;
    const group = slots.get(slot);
    if (group === undefined) slots.set(slot, [floatingMs]);
    else group.push(floatingMs);
  }
  return slots;
}

function describeRun(run: WeekRun, weeks: readonly number[], base: number, timeZone: string): SeriesDescription {
  const firstWeek = weeks[run.first] ?? 0;
  const lastWeek = weeks[run.last] ?? 0;
  const dtstart = floatingMsToLocalDateTime(base + firstWeek * MS_PER_WEEK);
  if (run.first === run.last) return { dtstart, recurrenceRule: null, exdates: [] };
  const present = new Set(weeks.slice(run.first, run.last + 1));
  const exdates: LocalDateTime[] = [];
  for (let week = firstWeek; week <= lastWeek; week += run.interval) {
    if (!present.has(week)) exdates.push(floatingMsToLocalDateTime(base + week * MS_PER_WEEK));
  }
  const lastStart = new Date(floatingMsToInstantMs(base + lastWeek * MS_PER_WEEK, timeZone));
  return { dtstart, recurrenceRule: formatWeeklyRule(run.interval, lastStart), exdates };
}

/**
 * Describes local start times (in `timeZone`) as weekly series and one-offs whose expansion gives back
 * exactly these starts. Callers group by course, weekday, local start/end, rooms and instructors; starts
 * at different weekdays or times of day are still handled (each slot separately), and duplicates count
 * once. The split between series, EXDATEs and one-offs is the policy of segmentWeeks. Sorted by dtstart.
 */
export function detectSeries(starts: readonly LocalDateTime[], timeZone: string): SeriesDescription[] {
  const descriptions: SeriesDescription[] = [];
  for (const group of groupByWeeklySlot(starts).values()) {
    group.sort((a, b) => a - b);
    const base = group[0] ?? 0;
    const weeks = group.map((floatingMs) => Math.round((floatingMs - base) / MS_PER_WEEK));
    for (const run of segmentWeeks(weeks)) descriptions.push(describeRun(run, weeks, base, timeZone));
  }
  return descriptions.sort((a, b) => (a.dtstart < b.dtstart ? -1 : a.dtstart > b.dtstart ? 1 : 0));
}
