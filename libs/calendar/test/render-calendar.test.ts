import ICAL from 'ical.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderCalendar, type CalendarEvent } from '../src/index.js';

// ical.js does not know RFC 7986 NAME or the X-WR-CALNAME convention; both are TEXT, so tell it, and
// it unescapes them like SUMMARY instead of returning the raw value.
for (const name of ['name', 'x-wr-calname']) ICAL.design.icalendar.property[name] = { defaultType: 'text' };
// X-PUBLISHED-TTL is Microsoft's; it holds a DURATION like RFC 7986 REFRESH-INTERVAL, which ical.js knows.
ICAL.design.icalendar.property['x-published-ttl'] = { defaultType: 'duration' };

const STAMP = new Date('2026-02-01T12:00:00Z');

function event(index: number, overrides: Partial<CalendarEvent> = {}): CalendarEvent {
  const start = new Date(Date.UTC(2026, 3, 13 + (index % 180), 8, 0, 0));
  return {
    uid: `0d6f3a1e-5b2c-4c1e-9a8b-${String(index).padStart(12, '0')}-2026-04-13@timetable.example.edu`,
    summary: `Mathematik ${index}`,
    start,
    end: new Date(start.getTime() + 90 * 60_000),
    stamp: STAMP,
    lastModified: STAMP,
    sequence: index % 4,
    ...overrides,
  };
}

function parse(text: string): ICAL.Component {
  return new ICAL.Component(ICAL.parse(text));
}

function physicalLines(text: string): string[] {
  return text.slice(0, -2).split('\r\n');
}

const TRICKY_TEXT = 'Übung; Grundlagen, Teil 1\\2\nRaum wechselt — bitte beachten: äöüß 日本語 😀 '.repeat(3);

describe('calendar properties', () => {
  const text = renderCalendar({ name: 'WI – 3. Semester; Gruppe A, B\\C\nNeu', events: [] });
  const calendar = parse(text);

  it('declares version, product, scale and method', () => {
    expect(calendar.getFirstPropertyValue('version')).toBe('2.0');
    expect(calendar.getFirstPropertyValue('prodid')).toBe('-//Timetable Service//Timetable Calendar Feed//EN');
    expect(calendar.getFirstPropertyValue('calscale')).toBe('GREGORIAN');
    expect(calendar.getFirstPropertyValue('method')).toBe('PUBLISH');
  });

  it('escapes the calendar name in NAME and X-WR-CALNAME', () => {
    expect(text).toContain('X-WR-CALNAME:WI – 3. Semester\\; Gruppe A\\, B\\\\C\\nNeu\r\n');
    expect(calendar.getFirstPropertyValue('name')).toBe('WI – 3. Semester; Gruppe A, B\\C\nNeu');
    expect(calendar.getFirstPropertyValue('x-wr-calname')).toBe('WI – 3. Semester; Gruppe A, B\\C\nNeu');
  });

  it('uses a given PRODID', () => {
    expect(parse(renderCalendar({ name: 'x', prodId: '-//Uni//Plan//DE', events: [] })).getFirstPropertyValue('prodid')).toBe(
      '-//Uni//Plan//DE',
    );
  });
});

describe('refresh interval', () => {
  const seconds = (calendar: ICAL.Component, name: string) => (calendar.getFirstPropertyValue(name) as ICAL.Duration).toSeconds();

  it('writes REFRESH-INTERVAL and X-PUBLISHED-TTL as the same DURATION after the calendar name', () => {
    const text = renderCalendar({ name: 'x', refreshIntervalSeconds: 3600, events: [event(1)] });
    expect(text).toContain('X-WR-CALNAME:x\r\nREFRESH-INTERVAL;VALUE=DURATION:PT1H\r\nX-PUBLISHED-TTL:PT1H\r\nBEGIN:VEVENT\r\n');
    const calendar = parse(text);
    expect(seconds(calendar, 'refresh-interval')).toBe(3600);
    expect(seconds(calendar, 'x-published-ttl')).toBe(3600);
  });

  it.each([
    [86_400, 'P1D'],
    [90, 'PT1M30S'],
    [93_784, 'P1DT2H3M4S'],
  ])('writes %i seconds as %s', (interval, duration) => {
    const text = renderCalendar({ name: 'x', refreshIntervalSeconds: interval, events: [] });
    expect(text).toContain(`REFRESH-INTERVAL;VALUE=DURATION:${duration}\r\nX-PUBLISHED-TTL:${duration}\r\n`);
    expect(seconds(parse(text), 'refresh-interval')).toBe(interval);
  });

  it('writes neither without an interval, and refuses one that is not a positive whole number of seconds', () => {
    expect(renderCalendar({ name: 'x', events: [] })).not.toMatch(/REFRESH-INTERVAL|X-PUBLISHED-TTL/);
    for (const interval of [0, -60, 1.5]) expect(() => renderCalendar({ name: 'x', refreshIntervalSeconds: interval, events: [] })).toThrow(RangeError);
  });
});

describe('events', () => {
  const events = Array.from({ length: 200 }, (_, index) => event(index));
  events[7] = event(7, { summary: TRICKY_TEXT, description: TRICKY_TEXT, location: 'Hörsaal A; Gebäude B, 2. OG' });
  const text = renderCalendar({ name: 'Feed', events });
  const vevents = parse(text).getAllSubcomponents('vevent');

  it('renders one VEVENT per event with unique UIDs', () => {
    const uids = vevents.map((vevent) => vevent.getFirstPropertyValue('uid'));
    expect(uids).toEqual(events.map((input) => input.uid));
    expect(new Set(uids).size).toBe(events.length);
  });

  it('writes instants in UTC basic format that parse back to the input', () => {
    vevents.forEach((vevent, index) => {
      const input = events[index]!;
      for (const [name, expected] of [
        ['dtstart', input.start],
        ['dtend', input.end],
        ['dtstamp', input.stamp],
        ['last-modified', input.lastModified],
      ] as const) {
        const value = vevent.getFirstPropertyValue(name) as ICAL.Time;
        expect(value.zone?.tzid).toBe('UTC');
        expect(value.toJSDate().getTime()).toBe(expected.getTime());
      }
      expect(vevent.getFirstPropertyValue('sequence')).toBe(input.sequence);
    });
    expect(text).toMatch(/\r\nDTSTART:20260413T080000Z\r\n/);
  });

  it('keeps umlauts, commas, semicolons, backslashes and newlines intact', () => {
    const tricky = vevents[7]!;
    expect(tricky.getFirstPropertyValue('summary')).toBe(TRICKY_TEXT);
    expect(tricky.getFirstPropertyValue('description')).toBe(TRICKY_TEXT);
    expect(tricky.getFirstPropertyValue('location')).toBe('Hörsaal A; Gebäude B, 2. OG');
  });

  it('omits DESCRIPTION and LOCATION when absent', () => {
    expect(vevents[0]!.hasProperty('description')).toBe(false);
    expect(vevents[0]!.hasProperty('location')).toBe(false);
  });

  it('folds lines at 75 octets without splitting a UTF-8 sequence', () => {
    const lines = physicalLines(text);
    expect(lines.some((line) => line.startsWith(' '))).toBe(true);
    for (const line of lines) {
      expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
      expect(line).not.toContain('\uFFFD');
      expect(Buffer.from(line).toString('utf8')).toBe(line);
      // A lone surrogate would mean a code point was cut in half.
      expect(line).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    }
  });

  it('ends every line with CRLF, including the last', () => {
    expect(text.endsWith('END:VCALENDAR\r\n')).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
  });

  it('rejects a negative or fractional SEQUENCE', () => {
    expect(() => renderCalendar({ name: 'x', events: [event(1, { sequence: -1 })] })).toThrow(RangeError);
  });
});

describe('a large feed', () => {
  // How fast it renders is measured in bench/, never asserted here.
  it('renders 1,500 events as 1,500 VEVENTs', () => {
    const events = Array.from({ length: 1500 }, (_, index) =>
      event(index, { description: 'Vorlesung mit Übung, bitte Skript mitbringen', location: 'Hörsaal 1' }),
    );
    const text = renderCalendar({ name: 'Feed', events });
    expect(text.match(/^BEGIN:VEVENT\r$/gm)).toHaveLength(1500);
  });
});

describe('byte stability', () => {
  afterEach(() => vi.useRealTimers());

  // Cached bodies, ETags and Last-Modified rest on it: nothing in a feed may come from the clock.
  it('renders the same input to the same bytes whenever it is rendered', () => {
    const document = { name: 'Feed', refreshIntervalSeconds: 3600, events: [event(1), event(2, { description: 'x', location: 'y' })] };
    vi.useFakeTimers({ now: new Date('2026-03-01T00:00:00Z') });
    const first = renderCalendar(document);
    vi.setSystemTime(new Date('2027-07-15T13:14:15Z'));
    expect(renderCalendar(document)).toBe(first);
    expect(first).not.toMatch(/2026030|20270715/);
  });
});
