export type { LocalDate, LocalDateTime } from './local-date-time.js';
export { localDateTimeToFloatingMs, localDateToFloatingMs } from './local-date-time.js';
export { instantToLocal, localDateOf, localToInstant } from './zoned-time.js';
export type { IsoWeek, LabelledIsoWeek, WeekRange } from './iso-week.js';
export { weekLabelClock } from './week-label-clock.js';
export { isoWeekOf, parseWeekLabel, weekExists, weekRange } from './iso-week.js';
export type {
  InstantWindow,
  Occurrence,
  SeriesDescription,
  SeriesToExpand,
} from './recurrence/series-description.js';
export { detectSeries } from './recurrence/detect-series.js';
export { excludedStarts, expandSeries } from './recurrence/expand-series.js';
export type { CalendarDocument, CalendarEvent } from './ical/render-calendar.js';
export { renderCalendar } from './ical/render-calendar.js';
