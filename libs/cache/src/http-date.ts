// HTTP-date (RFC 9110 5.6.7): sent as IMF-fixdate, read in all three forms a recipient must accept.

const DAYS = 'Mon|Tue|Wed|Thu|Fri|Sat|Sun';
const LONG_DAYS = 'Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = MONTHS.join('|');
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
/** `Sun, 06 Nov 1994 08:49:37 GMT` */
const IMF_FIXDATE = new RegExp(`^(?:${DAYS}), (\\d{2}) (${MONTH}) (\\d{4}) ${TIME} GMT$`);
/** `Sunday, 06-Nov-94 08:49:37 GMT` (obsolete) */
const RFC850_DATE = new RegExp(`^(?:${LONG_DAYS}), (\\d{2})-(${MONTH})-(\\d{2}) ${TIME} GMT$`);
/** `Sun Nov  6 08:49:37 1994` (obsolete, C's asctime) */
const ASCTIME_DATE = new RegExp(`^(?:${DAYS}) (${MONTH}) ([ \\d]\\d) ${TIME} (\\d{4})$`);

interface DateParts {
  year: number;
  month: string;
  day: string;
  hour: string;
  minute: string;
  second: string;
}

/** The instant as an IMF-fixdate, to the second (milliseconds are dropped). */
export function formatHttpDate(instant: Date): string {
  return instant.toUTCString();
}

/**
 * The instant an HTTP-date names, in milliseconds (a whole second), or null when the text is not an
 * HTTP-date or names no real time (30 February). The day name is not checked against the date.
 */
export function parseHttpDate(text: string, now = new Date()): number | null {
  const parts = dateParts(text, now);
  if (!parts) return null;
  const hour = Number(parts.hour);
  const minute = Number(parts.minute);
  const second = Number(parts.second);
  if (hour > 23 || minute > 59 || second > 59) return null;
  const month = MONTHS.indexOf(parts.month);
  const day = Number(parts.day.trim());
  const instant = new Date(Date.UTC(parts.year, month, day, hour, minute, second));
  // Date.UTC rolls an impossible day over into the next month; such a date is not one.
  if (instant.getUTCMonth() !== month || instant.getUTCDate() !== day) return null;
  return instant.getTime();
}

function dateParts(text: string, now: Date): DateParts | null {
  let match = IMF_FIXDATE.exec(text);
  if (match) {
    const [, day = '', month = '', year = '', hour = '', minute = '', second = ''] = match;
    return { year: Number(year), month, day, hour, minute, second };
  }
  match = RFC850_DATE.exec(text);
  if (match) {
    const [, day = '', month = '', year = '', hour = '', minute = '', second = ''] = match;
    return { year: fullYear(Number(year), now), month, day, hour, minute, second };
  }
  match = ASCTIME_DATE.exec(text);
  if (match) {
    const [, month = '', day = '', hour = '', minute = '', second = '', year = ''] = match;
    return { year: Number(year), month, day, hour, minute, second };
  }
  return null;
}

/** A two-digit year more than 50 years ahead is the most recent past year with those digits (RFC 9110). */
function fullYear(twoDigits: number, now: Date): number {
  const thisYear = now.getUTCFullYear();
  const candidate = thisYear - (thisYear % 100) + twoDigits;
  return candidate > thisYear + 50 ? candidate - 100 : candidate;
}
