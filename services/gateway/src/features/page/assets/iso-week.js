// ISO 8601 week labels (`2026-W50`), computed on UTC dates so the browser's time zone plays no part.

const DAY_MS = 86_400_000;

/**
 * Midnight UTC of the Monday that starts the week.
 * @param {string} label
 */
export function mondayOf(label) {
  const match = /^(\d{4})-W(\d{2})$/.exec(label);
  if (!match) throw new Error(`Not an ISO week: ${label}`);
  const year = Number(match[1]);
  const week = Number(match[2]);
  // 4 January always lies in week 1.
  const january4 = Date.UTC(year, 0, 4);
  const weekday = (new Date(january4).getUTCDay() + 6) % 7;
  return new Date(january4 - weekday * DAY_MS + (week - 1) * 7 * DAY_MS);
}

/**
 * The label of the week holding this UTC date.
 * @param {Date} date
 */
export function weekLabelOf(date) {
  const weekday = (date.getUTCDay() + 6) % 7;
  // The week belongs to the year of its Thursday.
  const thursday = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()) + (3 - weekday) * DAY_MS);
  const year = thursday.getUTCFullYear();
  const dayOfYear = Math.round((thursday.getTime() - Date.UTC(year, 0, 1)) / DAY_MS);
  const week = 1 + Math.floor(dayOfYear / 7);
  return `${year}-W${String(week).padStart(2, '0')}`;
}

/**
 * The label `weeks` weeks before (negative) or after (positive) the given one.
 * @param {string} label
 * @param {number} weeks
 */
export function shiftWeek(label, weeks) {
  return weekLabelOf(new Date(mondayOf(label).getTime() + weeks * 7 * DAY_MS));
}

/**
 * The seven UTC dates of the week, Monday first.
 * @param {string} label
 */
export function daysOf(label) {
  const monday = mondayOf(label).getTime();
  return Array.from({ length: 7 }, (_, index) => new Date(monday + index * DAY_MS));
}
