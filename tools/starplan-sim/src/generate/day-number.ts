/** Calendar arithmetic on day numbers (days since 1970-01-01), free of time zones. */
import type { DayNumber } from '../model/types.js';

const MS_PER_DAY = 86_400_000;
const formatted = new Map<DayNumber, string>();

export function dayOf(year: number, month: number, date: number): DayNumber {
  return Date.UTC(year, month - 1, date) / MS_PER_DAY;
}

/** `YYYY-MM-DD` (a date-time string is cut to its date part). */
export function parseDay(text: string): DayNumber {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (!match) throw new Error(`not a date: ${text}`);
  return dayOf(Number(match[1]), Number(match[2]), Number(match[3]));
}

export function formatDay(day: DayNumber): string {
  let text = formatted.get(day);
  if (text === undefined) {
    text = new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
    formatted.set(day, text);
  }
  return text;
}

/** 0 = Monday ... 6 = Sunday (1970-01-01 was a Thursday). */
export function weekdayOf(day: DayNumber): number {
  return (((day + 3) % 7) + 7) % 7;
}

export function mondayOf(day: DayNumber): DayNumber {
  return day - weekdayOf(day);
}

export function yearOf(day: DayNumber): number {
  return new Date(day * MS_PER_DAY).getUTCFullYear();
}

/** Easter Sunday (anonymous Gregorian algorithm). */
export function easterSunday(year: number): DayNumber {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const date = ((h + l - 7 * m + 114) % 31) + 1;
  return dayOf(year, month, date);
}

/** The calendar date of an instant in Europe/Berlin. */
export function berlinDayOf(instant: Date): DayNumber {
  const text = new Intl.DateTimeFormat('en-CA', {
    timeZone: 'Europe/Berlin',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(instant);
  return parseDay(text);
}
