export type { LocalDate, LocalDateTime } from './local-date-time.js';
export { addDaysToLocalDate, addMinutesToLocal, isoWeekdayOf, localDateTimeToFloatingMs, localDateToFloatingMs } from './local-date-time.js';
export { instantToLocal, localDateOf, localToInstant } from './zoned-time.js';
export type { IsoWeek, LabelledIsoWeek, WeekRange } from './iso-week.js';
export { weekLabelClock } from './week-label-clock.js';
export {
  WEEK_PATTERN,
  formatWeekLabel,
  isoWeekOf,
  isoWeekOfDate,
  mondayOfIsoWeek,
  parseWeekLabel,
  weekExists,
  weekRange,
  weeksInIsoYear,
} from './iso-week.js';
export type {
  InstantWindow,
  Occurrence,
  SeriesDescription,
  SeriesToExpand,
} from './recurrence/series-description.js';
export { detectSeries } from './recurrence/detect-series.js';
export { excludedStarts, expandSeries } from './recurrence/expand-series.js';
export { MAX_INTERVAL_WEEKS } from './recurrence/segment-weeks.js';
export type { CalendarDocument, CalendarEvent } from './ical/render-calendar.js';
export { DEFAULT_PRODID, renderCalendar } from './ical/render-calendar.js';
export { formatUtcBasic } from './utc-basic-format.js';
