import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type ExpectedOccurrence, type RunningSimulator } from '../src/index.js';
import { eventsOf, isoLocal, unescapeText, type FeedEvent } from './support/ical-lines.js';
import { decodeResponse } from './support/starplan-client.js';

const SUMMER_2024 = 48;
const WINTER_2023 = 47;

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ seed: 11, today: '2024-03-20' });
});
afterAll(() => sim.stop());

async function feed(puId: number, pgid: number): Promise<{ response: Response; text: string }> {
  const response = await fetch(`${sim.url}/ical?lan=de&puid=${puId}&type=pg&pgid=${pgid}`);
  return { response, text: await decodeResponse(response) };
}

/** The group with the most cancelled occurrences in the term, so every feature shows up. */
function busiestGroup(puId: number): number {
  const { model } = sim.simulator;
  const cancelledIn = (pgid: number) => model.occurrencesOfGroup(puId, pgid).filter((o) => o.cancelled).length;
  return [...model.groups.keys()].sort((a, b) => cancelledIn(b) - cancelledIn(a))[0] as number;
}

function asExpected(event: FeedEvent): Omit<ExpectedOccurrence, 'occurrenceId' | 'lectureId'> {
  const [lectureName = '', lecturers = '', groupShortname = '', note] = unescapeText(event.DESCRIPTION ?? '').split('\n');
  const location = unescapeText(event.LOCATION ?? '');
  return {
    summary: unescapeText(event.SUMMARY ?? ''),
    lectureName,
    start: isoLocal(event['DTSTART;TZID=Europe/Berlin'] ?? ''),
    end: isoLocal(event['DTEND;TZID=Europe/Berlin'] ?? ''),
    roomShortnames: location === '' ? [] : location.split(', '),
    lecturerNames: lecturers === '' ? [] : lecturers.split(', '),
    groupShortname,
    ...(note === undefined ? {} : { note }),
  };
}

describe('transport', () => {
  it('is text/calendar in UTF-8 with CRLF line endings and a final CRLF', async () => {
    const { response, text } = await feed(SUMMER_2024, busiestGroup(SUMMER_2024));
    expect(response.headers.get('content-type')).toBe('text/calendar; charset=UTF-8');
    expect(text.endsWith('END:VCALENDAR\r\n')).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
  });

  it('folds lines at 75 octets without splitting UTF-8 sequences', async () => {
    const response = await fetch(`${sim.url}/ical?lan=de&puid=${SUMMER_2024}&type=pg&pgid=${busiestGroup(SUMMER_2024)}`);
    const bytes = Buffer.from(await response.arrayBuffer());
    const lines = bytes.toString('utf8').split('\r\n');
    expect(lines.some((line) => line.startsWith(' '))).toBe(true);
    for (const line of lines) expect(Buffer.byteLength(line, 'utf8')).toBeLessThanOrEqual(75);
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes)).not.toThrow();
  });

  it('writes DTSTART and DTEND as local time with TZID=Europe/Berlin, and no RRULE in events', async () => {
    const { text } = await feed(SUMMER_2024, busiestGroup(SUMMER_2024));
    const events = eventsOf(text);
    expect(events.length).toBeGreaterThan(0);
    for (const event of events) {
      expect(event['DTSTART;TZID=Europe/Berlin']).toMatch(/^\d{8}T\d{6}$/);
      expect(event['DTEND;TZID=Europe/Berlin']).toMatch(/^\d{8}T\d{6}$/);
      expect(event.RRULE).toBeUndefined();
    }
  });

  it('gives new UIDs on every export', async () => {
    const pgid = busiestGroup(SUMMER_2024);
    const first = eventsOf((await feed(SUMMER_2024, pgid)).text).map((event) => event.UID);
    const second = eventsOf((await feed(SUMMER_2024, pgid)).text).map((event) => event.UID);
    expect(new Set(first).size).toBe(first.length);
    expect(first.filter((uid) => second.includes(uid))).toEqual([]);
  });

  it('answers unknown groups and terms with the JSON error body', async () => {
    for (const query of ['puid=48&type=pg&pgid=1', 'puid=1&type=pg&pgid=13000', 'puid=48&type=xy&pgid=13000', '']) {
      const response = await fetch(`${sim.url}/ical?lan=de&${query}`);
      expect(response.status).toBe(200);
      expect(JSON.parse(await decodeResponse(response))).toEqual(['', [{ error: expect.any(String) }]]);
    }
  });
});

describe('content matches the model', () => {
  it('every scheduled occurrence appears once, with summary, rooms, lecturers and group', async () => {
    const pgid = busiestGroup(SUMMER_2024);
    const events = eventsOf((await feed(SUMMER_2024, pgid)).text).filter((event) => event.STATUS !== 'CANCELLED');
    const expected = sim.simulator.expectedOccurrences(SUMMER_2024, pgid);
    expect(expected.length).toBeGreaterThan(20);
    expect(events.map(asExpected)).toEqual(expected.map(({ occurrenceId: _o, lectureId: _l, ...rest }) => rest));
  });

  it('marks cancelled occurrences STATUS:CANCELLED', async () => {
    const pgid = busiestGroup(SUMMER_2024);
    const cancelled = sim.simulator.model.occurrencesOfGroup(SUMMER_2024, pgid).filter((o) => o.cancelled);
    expect(cancelled.length).toBeGreaterThan(0);
    const events = eventsOf((await feed(SUMMER_2024, pgid)).text);
    expect(events.filter((event) => event.STATUS === 'CANCELLED')).toHaveLength(cancelled.length);
  });

  it('parses with ical.js, whose instants follow the Europe/Berlin offsets on both sides of DST', async () => {
    const { text } = await feed(WINTER_2023, busiestGroup(WINTER_2023));
    const calendar = new ICAL.Component(ICAL.parse(text));
    const zone = calendar.getFirstSubcomponent('vtimezone');
    if (!zone) throw new Error('no VTIMEZONE');
    ICAL.TimezoneService.register(new ICAL.Timezone(zone));
    const vevents = calendar.getAllSubcomponents('vevent');
    expect(vevents).toHaveLength(eventsOf(text).length);
    const offsets = new Set<number>();
    for (const vevent of vevents) {
      const start = new ICAL.Event(vevent).startDate;
      const local = start.toString().slice(0, 19);
      const offset = berlinOffsetHours(local);
      offsets.add(offset);
      expect(start.toJSDate().getTime()).toBe(Date.parse(`${local}Z`) - offset * 3_600_000);
    }
    expect([...offsets].sort()).toEqual([1, 2]);
  });
});

/** CEST from the last Sunday of March to the last Sunday of October (classes never fall in the switch hours). */
function berlinOffsetHours(local: string): number {
  const year = Number(local.slice(0, 4));
  const date = local.slice(0, 10);
  return date >= lastSunday(year, 3) && date < lastSunday(year, 10) ? 2 : 1;
}

function lastSunday(year: number, month: number): string {
  const last = new Date(Date.UTC(year, month, 0));
  last.setUTCDate(last.getUTCDate() - last.getUTCDay());
  return last.toISOString().slice(0, 10);
}
