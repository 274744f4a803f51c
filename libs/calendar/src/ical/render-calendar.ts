// iCalendar feed writer. A small dedicated writer instead of ical-generator: it is shorter than working
// around ical-generator's traps (floating DTSTAMP, DTSTAMP = now, unescaped NAME, no final CRLF) and faster.

import { formatUtcBasic } from '../utc-basic-format.js';
import { escapeText, foldLine } from './content-line.js';

export const DEFAULT_PRODID = '-//Timetable Service//Timetable Calendar Feed//EN';

export interface CalendarEvent {
  uid: string;
  summary: string;
  description?: string;
  location?: string;
  start: Date;
  end: Date;
  /** DTSTAMP: when the event's data last changed, never the request time, so the feed is stable. */
  stamp: Date;
  lastModified: Date;
  /** Raised on every change of the event. */
  sequence: number;
}

export interface CalendarDocument {
  name: string;
  prodId?: string;
  /**
   * How often a subscribed client should fetch the calendar again, in whole seconds: written as RFC 7986
   * REFRESH-INTERVAL and as X-PUBLISHED-TTL (which Outlook reads), as ical-generator's `ttl` writes them.
   */
  refreshIntervalSeconds?: number;
  events: readonly CalendarEvent[];
}

/** An RFC 5545 DURATION of whole seconds, largest units first: 3600 is PT1H, 86400 is P1D. */
function formatDuration(seconds: number): string {
  if (!Number.isInteger(seconds) || seconds <= 0) throw new RangeError(`Invalid refresh interval: ${seconds}`);
  const days = Math.floor(seconds / 86_400);
  const parts: [number, string][] = [[Math.floor(seconds / 3600) % 24, 'H'], [Math.floor(seconds / 60) % 60, 'M'], [seconds % 60, 'S']];
  const time = parts.filter(([amount]) => amount > 0).map(([amount, unit]) => `${amount}${unit}`).join('');
  return `P${days > 0 ? `${days}D` : ''}${time === '' ? '' : `T${time}`}`;
}

function refreshLines(seconds: number | undefined): string {
  if (seconds === undefined) return '';
  const duration = formatDuration(seconds);
  return `REFRESH-INTERVAL;VALUE=DURATION:${duration}\r\nX-PUBLISHED-TTL:${duration}\r\n`;
}

function renderEvent(event: CalendarEvent): string {
  if (!Number.isInteger(event.sequence) || event.sequence < 0) {
    throw new RangeError(`Invalid SEQUENCE for ${event.uid}: ${event.sequence}`);
  }
  let text =
    'BEGIN:VEVENT\r\n' +
    foldLine(`UID:${escapeText(event.uid)}`) +
    `DTSTAMP:${formatUtcBasic(event.stamp)}\r\n` +
    `DTSTART:${formatUtcBasic(event.start)}\r\n` +
    `DTEND:${formatUtcBasic(event.end)}\r\n` +
    `LAST-MODIFIED:${formatUtcBasic(event.lastModified)}\r\n` +
    `SEQUENCE:${event.sequence}\r\n` +
    foldLine(`SUMMARY:${escapeText(event.summary)}`);
  if (event.description !== undefined) text += foldLine(`DESCRIPTION:${escapeText(event.description)}`);
  if (event.location !== undefined) text += foldLine(`LOCATION:${escapeText(event.location)}`);
  return text + 'END:VEVENT\r\n';
}

/** A VCALENDAR with one VEVENT per event, all times UTC, CRLF line ends including after END:VCALENDAR. */
export function renderCalendar(calendar: CalendarDocument): string {
  const name = escapeText(calendar.name);
  const parts = [
    'BEGIN:VCALENDAR\r\nVERSION:2.0\r\n' +
      foldLine(`PRODID:${escapeText(calendar.prodId ?? DEFAULT_PRODID)}`) +
      'CALSCALE:GREGORIAN\r\nMETHOD:PUBLISH\r\n' +
      foldLine(`NAME:${name}`) +
      foldLine(`X-WR-CALNAME:${name}`) +
      refreshLines(calendar.refreshIntervalSeconds),
  ];
  for (const event of calendar.events) parts.push(renderEvent(event));
  parts.push('END:VCALENDAR\r\n');
  return parts.join('');
}
