// ISO 8601 weeks: Monday to Sunday, and a week belongs to the year of its Thursday.

import {
  MS_PER_DAY,
  addDaysToLocalDate,
  floatingMsToLocalDate,
  isoWeekdayOf,
  localDateToFloatingMs,
  type LocalDate,
} from './local-date-time.js';
import { floatingMsToInstantMs, localDateOf } from './zoned-time.js';

/** The week path segment of the interface spec, anchored: 'YYYY-Www' with ww in 01..53. */
export const WEEK_PATTERN = /^\d{4}-W(0[1-9]|[1-4]\d|5[0-3])$/;

export interface IsoWeek {
  year: number;
  week: number;
}

export interface LabelledIsoWeek extends IsoWeek {
  label: string;
}

/** [start, endExclusive) is the week; end is its last millisecond (the spec's dateRange.end). */
export interface WeekRange {
  start: Date;
  endExclusive: Date;
  end: Date;
}

const DAYS_PER_WEEK = 7;
const THURSDAY = 4;

/** The year and week of a label matching WEEK_PATTERN, or null; does not check that the week exists. */
export function parseWeekLabel(label: string): IsoWeek | null {
  if (!WEEK_PATTERN.test(label)) return null;
  return { year: Number(label.slice(0, 4)), week: Number(label.slice(6)) };
}

// Weekday number of 31 December of `year` (0 = Sunday), Gauss's formula on the proleptic calendar.
function weekdayOfDecember31(year: number): number {
  return (year + Math.floor(year / 4) - Math.floor(year / 100) + Math.floor(year / 400)) % 7;
}

/** 53 when the year starts on a Thursday, or is a leap year starting on a Wednesday; otherwise 52. */
export function weeksInIsoYear(year: number): 52 | 53 {
  return weekdayOfDecember31(year) === THURSDAY || weekdayOfDecember31(year - 1) === 3 ? 53 : 52;
}

/** Whether `year`-W`week` is a real ISO week (2026-W53 is, 2025-W53 is not). */
export function weekExists(year: number, week: number): boolean {
  return (
    Number.isInteger(year) && Number.isInteger(week) && week >= 1 && week <= weeksInIsoYear(year)
  );
}

function assertLabelYear(year: number): void {
  if (!Number.isInteger(year) || year < 0 || year > 9999) {
    throw new RangeError(`ISO week year out of range: ${year}`);
  }
}

/** 'YYYY-Www', e.g. formatWeekLabel(2026, 5) = '2026-W05'; throws a RangeError for a week that does not exist. */
export function formatWeekLabel(year: number, week: number): string {
  assertLabelYear(year);
  if (!weekExists(year, week)) throw new RangeError(`ISO week ${year}-W${week} does not exist`);
  return `${String(year).padStart(4, '0')}-W${String(week).padStart(2, '0')}`;
}

/** The Monday of an ISO week; throws a RangeError for a week that does not exist. */
export function mondayOfIsoWeek(year: number, week: number): LocalDate {
  const label = formatWeekLabel(year, week);
  // 4 January always lies in week 1.
  const january4 = `${label.slice(0, 4)}-01-04`;
  const mondayOfWeek1 = addDaysToLocalDate(january4, 1 - isoWeekdayOf(january4));
  return addDaysToLocalDate(mondayOfWeek1, (week - 1) * DAYS_PER_WEEK);
}

/** The ISO week containing a calendar date. */
export function isoWeekOfDate(date: LocalDate): LabelledIsoWeek {
  const thursdayMs = localDateToFloatingMs(date) + (THURSDAY - isoWeekdayOf(date)) * MS_PER_DAY;
  const thursday = floatingMsToLocalDate(thursdayMs);
  const year = Number(thursday.slice(0, 4));
  const dayOfYear = (thursdayMs - localDateToFloatingMs(`${thursday.slice(0, 4)}-01-01`)) / MS_PER_DAY;
  const week = Math.floor(dayOfYear / DAYS_PER_WEEK) + 1;
  return { year, week, label: formatWeekLabel(year, week) };
}

/** The ISO week containing `instant` on the wall clock of `timeZone`. */
export function isoWeekOf(instant: Date, timeZone: string): LabelledIsoWeek {
  return isoWeekOfDate(localDateOf(instant, timeZone));
}

/**
 * Monday 00:00 to the next Monday 00:00 on the wall clock of `timeZone`: 167 or 169 hours in a DST week.
 * A midnight that does not exist (a zone switching at 00:00) moves to the first instant of that day.
 */
export function weekRange(year: number, week: number, timeZone: string): WeekRange {
  const mondayMs = localDateToFloatingMs(mondayOfIsoWeek(year, week));
  const start = floatingMsToInstantMs(mondayMs, timeZone);
  const endExclusive = floatingMsToInstantMs(mondayMs + DAYS_PER_WEEK * MS_PER_DAY, timeZone);
  return { start: new Date(start), endExclusive: new Date(endExclusive), end: new Date(endExclusive - 1) };
}
