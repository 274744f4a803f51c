// Wall-clock values without a zone, and the "floating" arithmetic on them.
//
// A LocalDateTime is the string 'YYYY-MM-DDTHH:mm:ss' (second precision, no zone, no offset). Strings were
// chosen over a struct because they are what the upstream feed and the API carry, compare chronologically
// with `<`, work as Map/Set keys (EXDATE matching) and serialise without conversion.
// Floating milliseconds are the same wall-clock value read as if it were UTC: plain integer arithmetic on
// them (add minutes, add weeks) is calendar arithmetic that no DST change can disturb.

/** 'YYYY-MM-DDTHH:mm:ss', a wall-clock time in no particular zone. */
export type LocalDateTime = string;

/** 'YYYY-MM-DD', a calendar date in no particular zone. */
export type LocalDate = string;

export const MS_PER_MINUTE = 60_000;
export const MS_PER_DAY = 86_400_000;
export const MS_PER_WEEK = 7 * MS_PER_DAY;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const DIGIT_ZERO = 48;

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function isValidDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= (month === 2 && isLeapYear(year) ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0));
}

// Hand-rolled digit reading: this runs for every occurrence of a sync and a regex with
// array allocation was the dominant cost of a conversion.
function digitsAt(text: string, start: number, count: number): number {
  let value = 0;
  for (let index = start; index < start + count; index++) {
    const digit = text.charCodeAt(index) - DIGIT_ZERO;
    if (digit < 0 || digit > 9) return Number.NaN;
    value = value * 10 + digit;
  }
  return value;
}

/** A calendar date as read: year, month (1-12), day. */
type DateFields = [year: number, month: number, day: number];

/** Milliseconds of a date and a time of day given in seconds since midnight (Date.UTC carries them over). */
function utcMs([year, month, day]: DateFields, secondOfDay: number): number {
  const ms = Date.UTC(year, month - 1, day, 0, 0, secondOfDay);
  // Date.UTC maps years 0..99 to 1900..1999; setUTCFullYear undoes that for the rare tiny year.
  return year < 100 ? new Date(ms).setUTCFullYear(year) : ms;
}

function readDate(text: string): DateFields | null {
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return null; // '-'
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  return year >= 0 && isValidDate(year, month, day) ? [year, month, day] : null;
}

/** Floating milliseconds of a LocalDateTime; throws a RangeError for a malformed or impossible value. */
export function localDateTimeToFloatingMs(local: LocalDateTime): number {
  const date = local.length === 19 && local.charCodeAt(10) === 84 ? readDate(local) : null; // 'T'
  if (date !== null && local.charCodeAt(13) === 58 && local.charCodeAt(16) === 58) {
    const hour = digitsAt(local, 11, 2);
    const minute = digitsAt(local, 14, 2);
    const second = digitsAt(local, 17, 2);
    if (hour <= 23 && minute <= 59 && second <= 59) return utcMs(date, hour * 3600 + minute * 60 + second);
  }
  throw new RangeError(`Invalid local date-time: ${JSON.stringify(local)} (expected YYYY-MM-DDTHH:mm:ss)`);
}

/** Floating milliseconds of midnight at the start of a LocalDate; throws a RangeError when malformed. */
export function localDateToFloatingMs(date: LocalDate): number {
  const fields = date.length === 10 ? readDate(date) : null;
  if (fields !== null) return utcMs(fields, 0);
  throw new RangeError(`Invalid local date: ${JSON.stringify(date)} (expected YYYY-MM-DD)`);
}

function pad2(value: number): string {
  return value < 10 ? `0${value}` : String(value);
}

function pad4(value: number): string {
  return String(value).padStart(4, '0');
}

/** The LocalDateTime whose floating milliseconds are `ms` (sub-second parts are dropped). */
export function floatingMsToLocalDateTime(ms: number): LocalDateTime {
  const date = new Date(ms);
  return (
    `${pad4(date.getUTCFullYear())}-${pad2(date.getUTCMonth() + 1)}-${pad2(date.getUTCDate())}` +
    `T${pad2(date.getUTCHours())}:${pad2(date.getUTCMinutes())}:${pad2(date.getUTCSeconds())}`
  );
}

/** The LocalDate containing the floating milliseconds `ms`. */
export function floatingMsToLocalDate(ms: number): LocalDate {
  return floatingMsToLocalDateTime(ms).slice(0, 10);
}

/** Calendar addition on dates. */
export function addDaysToLocalDate(date: LocalDate, days: number): LocalDate {
  return floatingMsToLocalDate(localDateToFloatingMs(date) + days * MS_PER_DAY);
}

/** ISO weekday of a LocalDate or LocalDateTime: 1 = Monday .. 7 = Sunday. */
export function isoWeekdayOf(local: LocalDate | LocalDateTime): number {
  const ms = local.length === 10 ? localDateToFloatingMs(local) : localDateTimeToFloatingMs(local);
  return ((new Date(ms).getUTCDay() + 6) % 7) + 1;
}
