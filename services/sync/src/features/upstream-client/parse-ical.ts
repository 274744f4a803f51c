/** Reads a planning group's iCal feed into occurrences in local wall-clock time (SUMMARY the lecture shortname, LOCATION the rooms, DESCRIPTION lecture name / lecturers / group). */
import { instantToLocal } from '@timetable/calendar';
import { UpstreamError } from './upstream-error.js';

export interface FeedOccurrence {
  /** Local wall-clock 'YYYY-MM-DDTHH:mm:ss' in `timeZone`. */
  start: string;
  end: string;
  timeZone: string;
  /** SUMMARY: the lecture shortname. */
  summary: string;
  /** LOCATION split at commas: room shortnames. */
  roomShortnames: string[];
  location: string;
  /** DESCRIPTION line 1. */
  lectureName: string;
  /** DESCRIPTION line 2 split at ', '. */
  lecturerNames: string[];
  /** DESCRIPTION lines after the group line (e.g. `Verlegung`), or null. */
  note: string | null;
}

interface ContentLine {
  name: string;
  params: Record<string, string>;
  value: string;
}

/** Parses the feed; `defaultTimeZone` applies to floating times and converts UTC ones. */
export function parseGroupCalendar(text: string, defaultTimeZone: string): FeedOccurrence[] {
  const lines = unfold(text);
  if (lines[0]?.value !== 'VCALENDAR' || lines[0].name !== 'BEGIN' || !lines.some((line) => line.name === 'END' && line.value === 'VCALENDAR')) {
    throw new UpstreamError('incomplete iCalendar feed (no BEGIN/END:VCALENDAR)');
  }
  const occurrences: FeedOccurrence[] = [];
  const intern = interner();
  let event: Map<string, ContentLine> | undefined;
  let depth = 0;
  for (const line of lines) {
    if (line.name === 'BEGIN') {
      depth += 1;
      if (line.value === 'VEVENT') event = new Map();
    } else if (line.name === 'END') {
      depth -= 1;
      if (line.value === 'VEVENT' && event) {
        const occurrence = readEvent(event, defaultTimeZone, intern);
        if (occurrence) occurrences.push(occurrence);
        event = undefined;
      }
    } else if (event && !event.has(line.name)) {
      event.set(line.name, line);
    }
  }
  if (depth !== 0) throw new UpstreamError('unbalanced BEGIN/END in iCalendar feed');
  return occurrences;
}

function readEvent(event: Map<string, ContentLine>, defaultTimeZone: string, intern: Interner): FeedOccurrence | undefined {
  if (event.get('STATUS')?.value.toUpperCase() === 'CANCELLED') return undefined;
  const dtstart = event.get('DTSTART');
  const dtend = event.get('DTEND');
  if (!dtstart || !dtend) throw new UpstreamError('VEVENT without DTSTART/DTEND');
  const timeZone = dtstart.params.TZID ?? defaultTimeZone;
  const location = unescapeText(event.get('LOCATION')?.value ?? '').trim();
  const description = unescapeText(event.get('DESCRIPTION')?.value ?? '').split(/\r?\n/);
  const lecturers = description[1]?.trim() ?? '';
  const extra = description.slice(3).map((line) => line.trim()).filter((line) => line !== '');
  return {
    start: intern.text(readLocalTime(dtstart, timeZone)),
    end: intern.text(readLocalTime(dtend, timeZone)),
    timeZone: intern.text(timeZone),
    summary: intern.text(unescapeText(event.get('SUMMARY')?.value ?? '').trim()),
    roomShortnames: intern.list(splitList(location, ',')),
    location: intern.text(location),
    lectureName: intern.text(description[0]?.trim() ?? ''),
    lecturerNames: intern.list(splitList(lecturers, ',')),
    note: extra.length > 0 ? intern.text(extra.join('\n')) : null,
  };
}

interface Interner {
  text(value: string): string;
  /** The same array for the same values: occurrences share it, and nothing may modify it. */
  list(values: string[]): string[];
}

/**
 * One copy of each distinct value of a feed, detached from the feed's text. Most values repeat in every
 * week's VEVENT, and a value sliced out of the text would keep the whole text alive: without this a parsed
 * occurrence held about 1.5 kB, which at scale 100 (800k occurrences) was over a gigabyte.
 */
function interner(): Interner {
  const texts = new Map<string, string>();
  const lists = new Map<string, string[]>();
  const text = (value: string): string => {
    let kept = texts.get(value);
    if (kept === undefined) {
      kept = JSON.parse(JSON.stringify(value)) as string;
      texts.set(kept, kept);
    }
    return kept;
  };
  return {
    text,
    list(values) {
      const key = values.map(text).join('\u0000');
      let kept = lists.get(key);
      if (kept === undefined) {
        kept = values.map(text);
        lists.set(key, kept);
      }
      return kept;
    },
  };
}

function splitList(value: string, separator: string): string[] {
  return value.split(separator).map((item) => item.trim()).filter((item) => item !== '');
}

/** `20240325T080000` (local in the TZID) or `20240325T070000Z` (UTC, converted to local). */
function readLocalTime(line: ContentLine, timeZone: string): string {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(Z?)$/.exec(line.value.trim());
  if (!match) throw new UpstreamError(`unreadable ${line.name} value ${JSON.stringify(line.value)}`);
  const [, year, month, day, hour, minute, second, utc] = match;
  const local = `${year}-${month}-${day}T${hour}:${minute}:${second}`;
  return utc ? instantToLocal(new Date(`${local}Z`), timeZone) : local;
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
