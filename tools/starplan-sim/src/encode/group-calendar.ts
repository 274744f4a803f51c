/**
 * A planning group's iCal feed as StarPlan writes it: one VEVENT per occurrence, local wall-clock times with
 * TZID=Europe/Berlin, UIDs that change with every export, cancelled occurrences marked STATUS:CANCELLED.
 *
 * A feed is rendered once into a template whose only gaps are the UID prefix and the DTSTAMP of each event,
 * then filled for every answer, so an unchanged model is served without rendering it again while each export
 * still gets UIDs and a stamp of its own.
 */
import type { RawEventLines } from '../garble/garble-feed.js';
import type { ExpectedOccurrence } from '../model/types.js';
import { escapeText, foldLine } from './ical-text.js';

export const ICAL_CONTENT_TYPE = 'text/calendar; charset=UTF-8';

export interface CalendarEntry {
  occurrence: ExpectedOccurrence;
  cancelled: boolean;
  /** Lines a misbehaviour writes instead of the occurrence's own (garble/garble-feed.ts). */
  raw?: RawEventLines;
}

/**
 * The feed's UTF-8 bytes with room left at each gap, and where each gap starts: at `gaps[i]` (an offset in
 * `bytes`) the export's UID prefix goes when i is even and its stamp when i is odd, ASCII of fixed length, so a
 * filled feed is as long as its template. An export writes the gaps over the bytes (the template's own, or a
 * copy of them), which costs a fraction of joining the pieces between them one by one. One buffer and one array per feed, so
 * thousands of kept feeds are few objects for the garbage collector to walk. Neither gap sits in a folded
 * line: a UID line (at most 40 octets) and a DTSTAMP line (24) are far below the 75 octets at which lines fold.
 */
export interface CalendarTemplate {
  readonly bytes: Buffer;
  readonly gaps: Uint32Array;
}

const UID_PREFIX_DIGITS = 12;
const STAMP_LENGTH = '20240325T080000Z'.length;
const UID_PREFIX_ROOM = ' '.repeat(UID_PREFIX_DIGITS);
const STAMP_ROOM = ' '.repeat(STAMP_LENGTH);

const BERLIN_TIMEZONE = [
  'BEGIN:VTIMEZONE',
  'TZID:Europe/Berlin',
  'BEGIN:DAYLIGHT',
  'TZOFFSETFROM:+0100',
  'TZOFFSETTO:+0200',
  'TZNAME:CEST',
  'DTSTART:19700329T020000',
  'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU',
  'END:DAYLIGHT',
  'BEGIN:STANDARD',
  'TZOFFSETFROM:+0200',
  'TZOFFSETTO:+0100',
  'TZNAME:CET',
  'DTSTART:19701025T030000',
  'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU',
  'END:STANDARD',
  'END:VTIMEZONE',
];

export function renderGroupCalendar(groupShortname: string, entries: CalendarEntry[]): CalendarTemplate {
  const gaps = new Uint32Array(entries.length * 2);
  const pieces: string[] = [];
  let text = '';
  let byteOffset = 0;
  const line = (content: string) => {
    for (const physical of foldLine(content)) text += `${physical}\r\n`;
  };
  // The gap's room is left as spaces; every export writes over it.
  const gap = (index: number, room: string) => {
    byteOffset += Buffer.byteLength(text, 'utf8');
    gaps[index] = byteOffset;
    byteOffset += room.length;
    pieces.push(text, room);
    text = '';
  };
  for (const content of header(groupShortname)) line(content);
  entries.forEach((entry, index) => {
    line('BEGIN:VEVENT');
    text += 'UID:';
    gap(index * 2, UID_PREFIX_ROOM);
    text += `-${index}@starplan-sim\r\nDTSTAMP:`;
    gap(index * 2 + 1, STAMP_ROOM);
    text += '\r\n';
    for (const content of eventLines(entry)) line(content);
    line('END:VEVENT');
  });
  line('END:VCALENDAR');
  pieces.push(text);
  const bytes = Buffer.from(pieces.join(''), 'utf8');
  return { bytes, gaps };
}

/** One export of a rendered feed in bytes of its own: a UID prefix of its own and `now` as every event's DTSTAMP. */
export function fillGroupCalendar(template: CalendarTemplate, now: Date): Buffer {
  const feed = Buffer.allocUnsafe(template.bytes.length);
  template.bytes.copy(feed);
  writeGaps(feed, template.gaps, now);
  return feed;
}

/**
 * The same export written over the template's own bytes, whose gaps every export writes over, and returned: no
 * copy of the feed. A copy an answer was 24 MB of short-lived buffers outside the heap for each pass over a term
 * at scale 10; allocating and freeing them (V8 frees such buffers only in its collections, and ran more full
 * ones for them) cost the simulator about twice its CPU a pass, in bursts. The caller must not fill the template
 * again while these bytes are still being sent (http/feed-export.ts).
 */
export function fillGroupCalendarInPlace(template: CalendarTemplate, now: Date): Buffer {
  writeGaps(template.bytes, template.gaps, now);
  return template.bytes;
}

function writeGaps(feed: Buffer, gaps: Uint32Array, now: Date): void {
  const uidPrefix = Buffer.from(randomUidPrefix(), 'latin1');
  const stamp = Buffer.from(now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, ''), 'latin1');
  for (let index = 0; index < gaps.length; index += 1) feed.set(index % 2 === 0 ? uidPrefix : stamp, gaps[index]);
}

/**
 * Hex digits that differ from export to export, as StarPlan's UIDs do. They need not be unguessable, and
 * Math.random costs a fraction of asking the operating system for random bytes on every export.
 */
function randomUidPrefix(): string {
  let digits = '';
  while (digits.length < UID_PREFIX_DIGITS) digits += Math.floor(Math.random() * 2 ** 24).toString(16).padStart(6, '0');
  return digits;
}

function header(groupShortname: string): string[] {
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Progotec//StarPlan Simulator//DE',
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    `X-WR-CALNAME:${escapeText(groupShortname)}`,
    'X-WR-TIMEZONE:Europe/Berlin',
    ...BERLIN_TIMEZONE,
  ];
}

/** An event's lines after its UID and DTSTAMP. */
function eventLines({ occurrence, cancelled, raw }: CalendarEntry): string[] {
  const description = [occurrence.lectureName, occurrence.lecturerNames.join(', '), occurrence.groupShortname];
  if (occurrence.note !== undefined) description.push(occurrence.note);
  const tzid = raw?.tzid ?? 'Europe/Berlin';
  return [
    `DTSTART;TZID=${tzid}:${raw?.dtstart ?? basicLocal(occurrence.start)}`,
    `DTEND;TZID=${tzid}:${raw?.dtend ?? basicLocal(occurrence.end)}`,
    `SUMMARY:${escapeText(occurrence.summary)}`,
    `LOCATION:${escapeText(occurrence.roomShortnames.join(', '))}`,
    `DESCRIPTION:${escapeText(raw?.description ?? description.join('\n'))}`,
    ...(cancelled ? ['STATUS:CANCELLED'] : []),
  ];
}

/** `2024-03-25T08:00:00` -> `20240325T080000` */
export function basicLocal(local: string): string {
  return `${local.slice(0, 4)}${local.slice(5, 7)}${local.slice(8, 13)}${local.slice(14, 16)}${local.slice(17, 19)}`;
}
