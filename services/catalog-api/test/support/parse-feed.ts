/** Reads a served calendar with ical.js, an independent parser, rather than by string matching. */
import ICAL from 'ical.js';

export interface ParsedFeedEvent {
  uid: string;
  /** The event id part of `<eventId>-<local date>@<domain>`. */
  eventId: string;
  summary: string;
  location: string | null;
  start: string;
  end: string;
  stamp: string;
  sequence: number;
  hasRrule: boolean;
}

// ical.js leaves X- properties raw; calendar apps read X-WR-CALNAME as TEXT (commas escaped), and so do these tests.
ICAL.design.icalendar.property['x-wr-calname'] = { defaultType: 'text' };

const instantOf = (event: ICAL.Component, name: string): string => (event.getFirstPropertyValue(name) as ICAL.Time).toJSDate().toISOString();

/** The calendar's X-WR-CALNAME and its events. */
export function parseCalendar(text: string): { name: string; events: ParsedFeedEvent[] } {
  const calendar = new ICAL.Component(ICAL.parse(text) as unknown[]);
  const events = calendar.getAllSubcomponents('vevent').map((event) => {
    const uid = String(event.getFirstPropertyValue('uid'));
    return {
      uid,
      eventId: uid.slice(0, 36),
      summary: String(event.getFirstPropertyValue('summary')),
      location: (event.getFirstPropertyValue('location') as string | null) ?? null,
      start: instantOf(event, 'dtstart'),
      end: instantOf(event, 'dtend'),
      stamp: instantOf(event, 'dtstamp'),
      sequence: Number(event.getFirstPropertyValue('sequence') ?? 0),
      hasRrule: event.hasProperty('rrule'),
    };
  });
  return { name: String(calendar.getFirstPropertyValue('x-wr-calname')), events };
}

export function parseFeed(text: string): ParsedFeedEvent[] {
  return parseCalendar(text).events;
}
