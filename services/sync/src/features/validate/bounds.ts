/**
 * What an upstream record may hold: bounds that the stores' columns and the calendar code accept, and that
 * leave room for any real timetable (a real name is tens of characters, a real feed hundreds of events).
 */

/** PostgreSQL's `integer`: the columns upstream ids, seats, semester numbers and durations end up in. */
export const MAX_INTEGER = 2_147_483_647;

/** A name, shortname, title or e-mail address, in characters. */
export const MAX_NAME_LENGTH = 1_000;

/** A feed's LOCATION or DESCRIPTION, in characters. */
export const MAX_TEXT_LENGTH = 10_000;

/** Items of one JSON list answer. */
export const MAX_LIST_RECORDS = 100_000;

/** Lectures one planning group lists. */
export const MAX_LECTURES_PER_GROUP = 10_000;

/** VEVENTs of one planning group's feed. */
export const MAX_FEED_EVENTS = 50_000;

/** Rooms in one LOCATION, lecturers in one DESCRIPTION line. */
export const MAX_NAMES_PER_EVENT = 100;

/** The longest occurrence: a week, so that the occurrences of a weekly series never overlap. */
export const MAX_EVENT_MINUTES = 7 * 24 * 60;

/** Years a date may lie in. */
export const FIRST_YEAR = 1900;
export const LAST_YEAR = 2199;
