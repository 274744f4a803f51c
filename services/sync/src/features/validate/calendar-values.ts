/**
 * Dates and times as the upstream writes them, accepted only when they exist (no 30 February, no 24:00: the
 * calendar code refuses those, where `Date.parse` would roll them over) and lie in the years of FIRST_YEAR to
 * LAST_YEAR.
 */
import { localDateTimeToFloatingMs, localDateToFloatingMs } from '@timetable/calendar';
import { FIRST_YEAR, LAST_YEAR } from './bounds.js';
import type { RefusalReason } from './refusal.js';

/** A feed's date-time: local `YYYY-MM-DDTHH:mm:ss`, and whether it was written in UTC (`Z`). */
export interface BasicDateTime {
  local: string;
  utc: boolean;
}

const BASIC_DATE_TIME = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(Z?)$/;
const EXTENDED_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Why `YYYY-MM-DD` is no date the mirror takes, or undefined when it is one. */
export function dateRefusal(date: string): RefusalReason | undefined {
  if (!EXTENDED_DATE.test(date)) return 'malformed';
  try {
    localDateToFloatingMs(date);
  } catch {
    return 'impossible_date';
  }
  const year = Number(date.slice(0, 4));
  return year < FIRST_YEAR || year > LAST_YEAR ? 'date_out_of_range' : undefined;
}

/** `20240325T080000` or `20240325T070000Z`, or why it is none the mirror takes. */
export function readBasicDateTime(value: string): BasicDateTime | { refused: RefusalReason } {
  const match = BASIC_DATE_TIME.exec(value.trim());
  if (!match) return { refused: 'malformed' };
  const [, year, month, day, hour, minute, second, utc] = match;
  const date = `${year}-${month}-${day}`;
  const dateRefused = dateRefusal(date);
  if (dateRefused) return { refused: dateRefused };
  const local = `${date}T${hour}:${minute}:${second}`;
  try {
    localDateTimeToFloatingMs(local);
  } catch {
    return { refused: 'impossible_time' };
  }
  return { local, utc: utc === 'Z' };
}
