/**
 * A planning group's iCal feed as StarPlan writes it: one VEVENT per occurrence, local wall-clock times with
 * TZID=Europe/Berlin, UIDs that change with every export, cancelled occurrences marked STATUS:CANCELLED.
 */
import { randomBytes } from 'node:crypto';
import type { ExpectedOccurrence } from '../model/types.js';
import { escapeText, foldLine } from './ical-text.js';

export const ICAL_CONTENT_TYPE = 'text/calendar; charset=UTF-8';

export interface CalendarEntry {
  occurrence: ExpectedOccurrence;
  cancelled: boolean;
}

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

export function writeGroupCalendar(groupShortname: string, entries: CalendarEntry[], now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const uidPrefix = randomBytes(6).toString('hex');
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Progotec//StarPlan Simulator//DE',
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    `X-WR-CALNAME:${escapeText(groupShortname)}`,
    'X-WR-TIMEZONE:Europe/Berlin',
    ...BERLIN_TIMEZONE,
  ];
  entries.forEach((entry, index) => lines.push(...eventLines(entry, `${uidPrefix}-${index}@starplan-sim`, stamp)));
  lines.push('END:VCALENDAR');
  let text = '';
  for (const line of lines) for (const physical of foldLine(line)) text += `${physical}\r\n`;
  return text;
}

function eventLines({ occurrence, cancelled }: CalendarEntry, uid: string, stamp: string): string[] {
  const description = [occurrence.lectureName, occurrence.lecturerNames.join(', '), occurrence.groupShortname];
  if (occurrence.note !== undefined) description.push(occurrence.note);
  return [
    'BEGIN:VEVENT',
    `UID:${uid}`,
    `DTSTAMP:${stamp}`,
    `DTSTART;TZID=Europe/Berlin:${basicLocal(occurrence.start)}`,
    `DTEND;TZID=Europe/Berlin:${basicLocal(occurrence.end)}`,
    `SUMMARY:${escapeText(occurrence.summary)}`,
    `LOCATION:${escapeText(occurrence.roomShortnames.join(', '))}`,
    `DESCRIPTION:${escapeText(description.join('\n'))}`,
    ...(cancelled ? ['STATUS:CANCELLED'] : []),
    'END:VEVENT',
  ];
}

/** `2024-03-25T08:00:00` -> `20240325T080000` */
function basicLocal(local: string): string {
  return `${local.slice(0, 4)}${local.slice(5, 7)}${local.slice(8, 13)}${local.slice(14, 16)}${local.slice(17, 19)}`;
}
