/**
 * The VEVENTs of one planning group's feed, each checked: its times real and in a known zone, its end after
 * its start within MAX_EVENT_MINUTES, its texts and name lists bounded. A refused VEVENT is left out; a feed
 * with more than MAX_FEED_EVENTS, or that loses most of its VEVENTs, is unusable (its pair keeps its events).
 */
import { instantToLocal, localDateTimeToFloatingMs, localToInstant } from '@timetable/calendar';
import { MAX_EVENT_MINUTES, MAX_FEED_EVENTS, MAX_NAME_LENGTH, MAX_NAMES_PER_EVENT, MAX_TEXT_LENGTH } from './bounds.js';
import { readBasicDateTime } from './calendar-values.js';
import type { CalendarDateTime, CalendarEvent, FeedOccurrence } from './feed-occurrence.js';
import { feedInterner, type FeedInterner } from './feed-interner.js';
import { refusedMost, type CheckedAnswer, type Refusal, type RefusalReason } from './refusal.js';
import { resolveTimeZone } from './time-zones.js';

/** `defaultTimeZone` applies to floating times and is the zone UTC times are converted to. */
export function checkFeed(events: readonly CalendarEvent[], defaultTimeZone: string): CheckedAnswer<FeedOccurrence> {
  if (events.length > MAX_FEED_EVENTS) {
    const detail = `more than ${MAX_FEED_EVENTS} events`;
    return { records: [], refused: [{ kind: 'event', reason: 'too_many_records', id: null, detail }], unusable: `the feed lists ${detail}` };
  }
  const intern = feedInterner();
  const records: FeedOccurrence[] = [];
  const refused: Refusal[] = [];
  for (const event of events) {
    const checked = checkEvent(event, defaultTimeZone, intern);
    if (typeof checked === 'string') refused.push({ kind: 'event', reason: checked, id: null, detail: describe(event, checked) });
    else records.push(checked);
  }
  if (refusedMost(refused.length, events.length)) return { records, refused, unusable: `${refused.length} of ${events.length} events of the feed refused` };
  return { records, refused };
}

function checkEvent(event: CalendarEvent, defaultTimeZone: string, intern: FeedInterner): FeedOccurrence | RefusalReason {
  if (event.summary.length > MAX_NAME_LENGTH || event.location.length > MAX_TEXT_LENGTH || event.description.length > MAX_TEXT_LENGTH) {
    return 'string_too_long';
  }
  const times = readTimes(event, defaultTimeZone);
  if (typeof times === 'string') return times;
  const location = event.location.trim();
  const description = event.description.split(/\r?\n/);
  const lectureName = description[0]?.trim() ?? '';
  const roomShortnames = splitList(location);
  const lecturerNames = splitList(description[1]?.trim() ?? '');
  const names = [...roomShortnames, ...lecturerNames];
  if (roomShortnames.length > MAX_NAMES_PER_EVENT || lecturerNames.length > MAX_NAMES_PER_EVENT) return 'too_many_records';
  if (lectureName.length > MAX_NAME_LENGTH || names.some((name) => name.length > MAX_NAME_LENGTH)) return 'string_too_long';
  const extra = description.slice(3).map((line) => line.trim()).filter((line) => line !== '');
  return {
    start: intern.text(times.start),
    end: intern.text(times.end),
    timeZone: intern.text(times.timeZone),
    summary: intern.text(event.summary.trim()),
    roomShortnames: intern.list(roomShortnames),
    location: intern.text(location),
    lectureName: intern.text(lectureName),
    lecturerNames: intern.list(lecturerNames),
    note: extra.length > 0 ? intern.text(extra.join('\n')) : null,
  };
}

/** Start and end as local times in the start's zone (an end in another zone is converted to it). */
function readTimes(event: CalendarEvent, defaultTimeZone: string): { start: string; end: string; timeZone: string } | RefusalReason {
  if (event.start === undefined || event.end === undefined) return 'malformed';
  const timeZone = zoneOf(event.start, defaultTimeZone);
  const endZone = zoneOf(event.end, timeZone ?? defaultTimeZone);
  if (timeZone === undefined || endZone === undefined) return 'unknown_zone';
  const start = localIn(event.start, timeZone, timeZone);
  const end = localIn(event.end, endZone, timeZone);
  if (typeof start !== 'string') return start.refused;
  if (typeof end !== 'string') return end.refused;
  const minutes = (localDateTimeToFloatingMs(end) - localDateTimeToFloatingMs(start)) / 60_000;
  if (!(minutes > 0)) return 'end_not_after_start';
  if (minutes > MAX_EVENT_MINUTES) return 'duration_too_long';
  return { start, end, timeZone };
}

function zoneOf(time: CalendarDateTime, fallback: string): string | undefined {
  return time.tzid === undefined ? fallback : resolveTimeZone(time.tzid);
}

/** The wall-clock time in `timeZone` of a value written in `writtenIn` (or in UTC). */
function localIn(time: CalendarDateTime, writtenIn: string, timeZone: string): string | { refused: RefusalReason } {
  const read = readBasicDateTime(time.value);
  if ('refused' in read) return read;
  if (read.utc) return instantToLocal(new Date(`${read.local}Z`), timeZone);
  return writtenIn === timeZone ? read.local : instantToLocal(localToInstant(read.local, writtenIn), timeZone);
}

function splitList(value: string): string[] {
  return value.split(',').map((item) => item.trim()).filter((item) => item !== '');
}

/** Enough of the VEVENT to find it in the feed, never more than a line. */
function describe(event: CalendarEvent, reason: RefusalReason): string {
  const start = event.start ? `${event.start.tzid ?? ''}:${event.start.value}`.slice(0, 80) : 'no DTSTART';
  return `VEVENT ${JSON.stringify(event.summary.slice(0, 40))} at ${start}: ${reason.replace(/_/g, ' ')}`;
}
