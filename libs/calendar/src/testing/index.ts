/**
 * What tests reach inside the calendar for, kept out of its public index: date arithmetic and the ISO-week
 * helpers they use to build fixtures and to name the week they expect, which production code never needs.
 */
export { addDaysToLocalDate } from '../local-date-time.js';
export { isoWeekOfDate, mondayOfIsoWeek } from '../iso-week.js';
