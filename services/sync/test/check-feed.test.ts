import { describe, expect, it } from 'vitest';
import { parseGroupCalendar } from '../src/features/read/parse-ical.js';
import { MAX_FEED_EVENTS } from '../src/features/validate/bounds.js';
import { checkFeed } from '../src/features/validate/check-feed.js';

const vevent = (start: string, end: string, ...lines: string[]) =>
  ['BEGIN:VEVENT', 'UID:x@y', `DTSTART${start}`, `DTEND${end}`, 'SUMMARY:ML', 'LOCATION:B0.11', ...lines, 'END:VEVENT'].join('\r\n');
const berlin = (time: string) => `;TZID=Europe/Berlin:${time}`;
const good = vevent(berlin('20240325T080000'), berlin('20240325T093000'));
const feed = (...events: string[]) => ['BEGIN:VCALENDAR', 'VERSION:2.0', ...events, 'END:VCALENDAR', ''].join('\r\n');
/** One bad VEVENT among good ones, checked as the client checks a feed. */
const among = (bad: string) => checkFeed(parseGroupCalendar(feed(good, bad, good.replace(/20240325/g, '20240401'))), 'Europe/Berlin');

describe('a VEVENT whose time does not exist is refused, the others pass', () => {
  it.each([
    ['30 February', vevent(berlin('20270230T080000'), berlin('20270230T093000')), 'impossible_date'],
    ['month 13', vevent(berlin('20271301T080000'), berlin('20271301T093000')), 'impossible_date'],
    ['24:00', vevent(berlin('20270301T240000'), berlin('20270302T010000')), 'impossible_time'],
    ['minute 61', vevent(berlin('20270301T086100'), berlin('20270301T093000')), 'impossible_time'],
    ['a date-only value', vevent(';VALUE=DATE:20270301', ';VALUE=DATE:20270302'), 'malformed'],
    ['the year 1066', vevent(berlin('10661014T080000'), berlin('10661014T093000')), 'date_out_of_range'],
    ['no DTEND', ['BEGIN:VEVENT', `DTSTART${berlin('20240325T080000')}`, 'SUMMARY:ML', 'END:VEVENT'].join('\r\n'), 'malformed'],
  ])('%s', (_name, bad, reason) => {
    const checked = among(bad);
    expect(checked.records.map((occurrence) => occurrence.start)).toEqual(['2024-03-25T08:00:00', '2024-04-01T08:00:00']);
    expect(checked.refused).toEqual([expect.objectContaining({ kind: 'event', reason, id: null })]);
    expect(checked.unusable).toBeUndefined();
  });
});

describe('zones', () => {
  it('a Windows zone name is CLDR\'s IANA zone: the occurrence is the one Europe/Berlin gives', () => {
    const windows = among(vevent(';TZID=W. Europe Standard Time:20240408T080000', ';TZID="W. Europe Standard Time":20240408T093000'));
    const iana = among(vevent(berlin('20240408T080000'), berlin('20240408T093000')));
    expect(windows.refused).toEqual([]);
    expect(windows.records).toEqual(iana.records);
    expect(windows.records[1]).toMatchObject({ start: '2024-04-08T08:00:00', timeZone: 'Europe/Berlin' });
  });

  it('an IANA name in another case is that zone', () => {
    expect(among(vevent(';TZID=europe/berlin:20240408T080000', ';TZID=europe/berlin:20240408T093000')).records[1]?.timeZone).toBe('Europe/Berlin');
  });

  it.each([
    ['a zone no database knows', 'Mars/Olympus_Mons'],
    ['an offset', '+01:00'],
    ["Outlook's display name", '(UTC+01:00) Amsterdam, Berlin'],
    ['a name of 5,000 characters', 'x'.repeat(5000)],
  ])('refuses %s', (_name, tzid) => {
    const checked = among(vevent(`;TZID=${tzid}:20240408T080000`, `;TZID=${tzid}:20240408T093000`));
    expect(checked.refused.map((refusal) => refusal.reason)).toEqual(['unknown_zone']);
    expect(checked.records).toHaveLength(2);
  });

  it('an end written in another zone is converted to the start\'s', () => {
    const [, occurrence] = among(vevent(berlin('20240408T080000'), ';TZID=Europe/London:20240408T083000')).records;
    expect([occurrence?.start, occurrence?.end]).toEqual(['2024-04-08T08:00:00', '2024-04-08T09:30:00']);
  });
});

describe('durations', () => {
  it.each([
    ['an end before the start', vevent(berlin('20240408T093000'), berlin('20240408T080000')), 'end_not_after_start'],
    ['an end equal to the start', vevent(berlin('20240408T080000'), berlin('20240408T080000')), 'end_not_after_start'],
    ['an end years after the start', vevent(berlin('20240408T080000'), berlin('20290408T093000')), 'duration_too_long'],
    ['an end a week and a minute after the start', vevent(berlin('20240408T080000'), berlin('20240415T080100')), 'duration_too_long'],
  ])('refuses %s', (_name, bad, reason) => {
    expect(among(bad).refused.map((refusal) => refusal.reason)).toEqual([reason]);
  });

  it('takes a week exactly', () => {
    expect(among(vevent(berlin('20240408T080000'), berlin('20240415T080000'))).refused).toEqual([]);
  });
});

describe('sizes', () => {
  it('refuses a DESCRIPTION of megabytes and a LOCATION naming too many rooms', () => {
    expect(among(vevent(berlin('20240408T080000'), berlin('20240408T093000'), `DESCRIPTION:${'x'.repeat(2 ** 21)}`)).refused[0]?.reason).toBe('string_too_long');
    const rooms = Array.from({ length: 101 }, (_, index) => `R${index}`).join('\\,');
    expect(among(vevent(berlin('20240408T080000'), berlin('20240408T093000')).replace('LOCATION:B0.11', `LOCATION:${rooms}`)).refused[0]?.reason).toBe('too_many_records');
  });

  it('a feed is read only one event past the bound it is given', () => {
    expect(parseGroupCalendar(feed(...Array.from({ length: 10 }, () => good)), 5)).toHaveLength(6);
  });

  it('a feed with more than MAX_FEED_EVENTS events is unusable as a whole', () => {
    const [event] = parseGroupCalendar(feed(good));
    const checked = checkFeed(Array.from({ length: MAX_FEED_EVENTS + 1 }, () => event!), 'Europe/Berlin');
    expect(checked.unusable).toMatch(/more than 50000 events/);
    expect(checked.refused).toEqual([expect.objectContaining({ kind: 'event', reason: 'too_many_records' })]);
  });

  it('a feed that loses most of its events is unusable (the safety valve keeps its pair), one that loses half is not', () => {
    const bad = vevent(berlin('20270230T080000'), berlin('20270230T093000'));
    expect(checkFeed(parseGroupCalendar(feed(good, bad, bad)), 'Europe/Berlin').unusable).toBe('2 of 3 events of the feed refused');
    expect(checkFeed(parseGroupCalendar(feed(good, bad)), 'Europe/Berlin').unusable).toBeUndefined();
  });
});
