import { describe, expect, it } from 'vitest';
import { parseGroupCalendar, unescapeText } from '../src/features/read/parse-ical.js';
import { UpstreamError } from '../src/features/read/upstream-error.js';
import { checkFeed } from '../src/features/validate/check-feed.js';

/** What the client makes of a feed's text: its VEVENTs as read, then checked. */
const readFeed = (text: string, timeZone: string) => checkFeed(parseGroupCalendar(text), timeZone).records;

const feed = (events: string[], eol = '\r\n') =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Progotec//StarPlan//DE', ...events, 'END:VCALENDAR', ''].join(eol);

const vevent = (...lines: string[]) => ['BEGIN:VEVENT', 'UID:abc@x', ...lines, 'END:VEVENT'].join('\r\n');

describe('the planning-group feed', () => {
  it('reads TZID local times, SUMMARY, LOCATION and DESCRIPTION lines', () => {
    const text = feed([
      vevent(
        'DTSTART;TZID=Europe/Berlin:20240325T080000',
        'DTEND;TZID=Europe/Berlin:20240325T111500',
        'SUMMARY:ML',
        'LOCATION:B0.11\\, B0.12',
        'DESCRIPTION:Maschinelles Lernen\\nProf. Dr. Anna Müller\\, Dr. Bernd Schmidt\\nINF-M/FWPM\\nVerlegung',
      ),
    ]);
    expect(readFeed(text, 'UTC')).toEqual([
      {
        start: '2024-03-25T08:00:00',
        end: '2024-03-25T11:15:00',
        timeZone: 'Europe/Berlin',
        summary: 'ML',
        roomShortnames: ['B0.11', 'B0.12'],
        location: 'B0.11, B0.12',
        lectureName: 'Maschinelles Lernen',
        lecturerNames: ['Prof. Dr. Anna Müller', 'Dr. Bernd Schmidt'],
        note: 'Verlegung',
      },
    ]);
  });

  it('unfolds continuation lines, also with LF line ends', () => {
    const text = feed(
      [
        [
          'BEGIN:VEVENT',
          'DTSTART;TZID=Europe/Berlin:20240325T080000',
          'DTEND;TZID=Europe/Berlin:20240325T093000',
          'SUMMARY:Fachschaft',
          '  INF',
          'DESCRIPTION:Fachschaft INF\\n\\nINF',
          '\t-B 1',
          'END:VEVENT',
        ].join('\n'),
      ],
      '\n',
    );
    const [occurrence] = readFeed(text, 'Europe/Berlin');
    expect(occurrence?.summary).toBe('Fachschaft INF');
    expect(occurrence?.lecturerNames).toEqual([]);
    expect(occurrence?.roomShortnames).toEqual([]);
    expect(occurrence?.note).toBeNull();
  });

  it('treats STATUS:CANCELLED as absent', () => {
    const text = feed([
      vevent('DTSTART;TZID=Europe/Berlin:20240325T080000', 'DTEND;TZID=Europe/Berlin:20240325T093000', 'SUMMARY:A', 'STATUS:CANCELLED'),
      vevent('DTSTART;TZID=Europe/Berlin:20240401T080000', 'DTEND;TZID=Europe/Berlin:20240401T093000', 'SUMMARY:A'),
    ]);
    expect(readFeed(text, 'Europe/Berlin').map((occurrence) => occurrence.start)).toEqual(['2024-04-01T08:00:00']);
  });

  it('converts UTC times to local time in the default zone (DST included)', () => {
    const text = feed([vevent('DTSTART:20240401T060000Z', 'DTEND:20240401T073000Z', 'SUMMARY:A')]);
    const [occurrence] = readFeed(text, 'Europe/Berlin');
    expect([occurrence?.start, occurrence?.end, occurrence?.timeZone]).toEqual(['2024-04-01T08:00:00', '2024-04-01T09:30:00', 'Europe/Berlin']);
  });

  it('rejects a truncated feed', () => {
    const text = feed([vevent('DTSTART;TZID=Europe/Berlin:20240325T080000', 'DTEND;TZID=Europe/Berlin:20240325T093000', 'SUMMARY:A')]);
    expect(() => parseGroupCalendar(text.slice(0, text.length - 40))).toThrow(UpstreamError);
  });

  it('accepts an empty calendar', () => {
    expect(readFeed(feed([]), 'Europe/Berlin')).toEqual([]);
  });

  it('unescapes TEXT values', () => {
    expect(unescapeText('a\\,b\\;c\\\\d\\ne\\Nf')).toBe('a,b;c\\d\ne\nf');
  });
});
