/**
 * Reads a planning group's iCal feed into its VEVENTs as written (DTSTART/DTEND with their TZID, SUMMARY,
 * LOCATION, DESCRIPTION unescaped), leaving out cancelled ones; checking them is validate's (check-feed.ts).
 */
import type { CalendarDateTime, CalendarEvent } from '../validate/feed-occurrence.js';
import { UpstreamError } from './upstream-error.js';

interface ContentLine {
  name: string;
  params: Record<string, string>;
  value: string;
}

/**
 * The feed's VEVENTs; only the structure of the calendar can fail it. Reading stops after `atMost` + 1 events
 * (a feed with more is refused whole, and need not be read on).
 */
export function parseGroupCalendar(text: string, atMost = Number.POSITIVE_INFINITY): CalendarEvent[] {
  const lines = unfold(text);
  if (lines[0]?.value !== 'VCALENDAR' || lines[0].name !== 'BEGIN' || !lines.some((line) => line.name === 'END' && line.value === 'VCALENDAR')) {
    throw new UpstreamError('incomplete iCalendar feed (no BEGIN/END:VCALENDAR)');
  }
  const events: CalendarEvent[] = [];
  let event: Map<string, ContentLine> | undefined;
  let depth = 0;
  for (const line of lines) {
    if (line.name === 'BEGIN') {
      depth += 1;
      if (line.value === 'VEVENT') event = new Map();
    } else if (line.name === 'END') {
      depth -= 1;
      if (line.value === 'VEVENT' && event) {
        if (event.get('STATUS')?.value.toUpperCase() !== 'CANCELLED') events.push(readEvent(event));
        if (events.length > atMost) return events;
        event = undefined;
      }
    } else if (event && !event.has(line.name)) {
      event.set(line.name, line);
    }
  }
  if (depth !== 0) throw new UpstreamError('unbalanced BEGIN/END in iCalendar feed');
  return events;
}

function readEvent(event: Map<string, ContentLine>): CalendarEvent {
  return {
    start: dateTimeOf(event.get('DTSTART')),
    end: dateTimeOf(event.get('DTEND')),
    summary: unescapeText(event.get('SUMMARY')?.value ?? ''),
    location: unescapeText(event.get('LOCATION')?.value ?? ''),
    description: unescapeText(event.get('DESCRIPTION')?.value ?? ''),
  };
}

function dateTimeOf(line: ContentLine | undefined): CalendarDateTime | undefined {
  return line === undefined ? undefined : { value: line.value, tzid: line.params.TZID };
}

/** Unfolds continuation lines (CRLF or LF followed by a space or tab) and splits name;params:value. */
function unfold(text: string): ContentLine[] {
  const physical = text.split(/\r?\n/);
  const logical: string[] = [];
  for (const line of physical) {
    if ((line.startsWith(' ') || line.startsWith('\t')) && logical.length > 0) {
      logical[logical.length - 1] += line.slice(1);
    } else if (line !== '') {
      logical.push(line);
    }
  }
  return logical.map(splitContentLine);
}

function splitContentLine(line: string): ContentLine {
  let inQuotes = false;
  let colon = -1;
  for (let index = 0; index < line.length; index += 1) {
    const character = line[index];
    if (character === '"') inQuotes = !inQuotes;
    else if (character === ':' && !inQuotes) {
      colon = index;
      break;
    }
  }
  if (colon < 0) throw new UpstreamError(`malformed iCalendar line ${JSON.stringify(line.slice(0, 40))}`);
  const [name = '', ...rawParams] = line.slice(0, colon).split(';');
  const params: Record<string, string> = {};
  for (const param of rawParams) {
    const equals = param.indexOf('=');
    if (equals > 0) params[param.slice(0, equals).toUpperCase()] = param.slice(equals + 1).replace(/^"|"$/g, '');
  }
  return { name: name.toUpperCase(), params, value: line.slice(colon + 1) };
}

/** RFC 5545 TEXT: `\n`/`\N` newline, `\,` `\;` `\\`. */
export function unescapeText(value: string): string {
  return value.replace(/\\([nN,;\\])/g, (_match, escaped: string) => (escaped === 'n' || escaped === 'N' ? '\n' : escaped));
}
