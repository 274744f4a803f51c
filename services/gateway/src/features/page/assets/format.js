// How dates and times read on the page: the reader's own locale; instants in the reader's time zone.

const time = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
// Calendar days of a week are UTC dates (see iso-week.js), so they are shown in UTC.
const day = new Intl.DateTimeFormat(undefined, { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' });
const shortDay = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

/** @param {Date | string} instant */
export function formatTime(instant) {
  return time.format(new Date(instant));
}

/** @param {Date | string | null} instant */
export function formatDateTime(instant) {
  return instant === null ? '—' : dateTime.format(new Date(instant));
}

/** @param {Date} utcDate */
export function formatDay(utcDate) {
  return day.format(utcDate);
}

/** @param {Date} utcDate */
export function formatShortDay(utcDate) {
  return shortDay.format(utcDate);
}

/**
 * The value of a `datetime-local` input for an instant, in the reader's time zone.
 * @param {Date} instant
 */
export function toLocalInputValue(instant) {
  const local = new Date(instant.getTime() - instant.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}
