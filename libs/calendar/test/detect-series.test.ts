import rrulePackage from 'rrule';
import { describe, expect, it } from 'vitest';
import { detectSeries, type LocalDateTime } from '../src/index.js';
import { addDaysToLocalDate } from '../src/testing/index.js';

const { rrulestr } = rrulePackage;
const BERLIN = 'Europe/Berlin';

/** Local starts at `time` on the Mondays (or other day) `firstDate` + 7 * week for each given week. */
function weekly(firstDate: string, time: string, weeks: number[]): LocalDateTime[] {
  return weeks.map((week) => `${addDaysToLocalDate(firstDate, 7 * week)}T${time}`);
}

function range(from: number, to: number, step = 1): number[] {
  const values: number[] = [];
  for (let value = from; value <= to; value += step) values.push(value);
  return values;
}

describe('one-offs', () => {
  it('describes a lone occurrence without a rule', () => {
    expect(detectSeries(['2026-05-04T10:00:00'], BERLIN)).toEqual([
      { dtstart: '2026-05-04T10:00:00', recurrenceRule: null, exdates: [] },
    ]);
  });

  it('returns nothing for nothing', () => {
    expect(detectSeries([], BERLIN)).toEqual([]);
  });
});

describe('weekly series', () => {
  it('describes a plain weekly lecture with INTERVAL=1 and UNTIL at the last start in UTC', () => {
    const starts = weekly('2026-04-13', '10:00:00', range(0, 13));
    expect(detectSeries(starts, BERLIN)).toEqual([
      { dtstart: '2026-04-13T10:00:00', recurrenceRule: 'FREQ=WEEKLY;INTERVAL=1;UNTIL=20260713T080000Z', exdates: [] },
    ]);
  });

  it('uses the UTC offset of the last date for UNTIL across the October change', () => {
    const [series] = detectSeries(weekly('2026-10-05', '08:15:00', range(0, 9)), BERLIN);
    expect(series?.recurrenceRule).toBe('FREQ=WEEKLY;INTERVAL=1;UNTIL=20261207T071500Z');
  });

  it('keeps holidays inside one series as EXDATEs', () => {
    // Winter semester: a Christmas break skipping two Mondays, and one more holiday.
    const weeks = range(0, 14).filter((week) => week !== 4 && week !== 11 && week !== 12);
    const result = detectSeries(weekly('2026-10-19', '12:00:00', weeks), BERLIN);
    expect(result).toEqual([
      {
        dtstart: '2026-10-19T12:00:00',
        recurrenceRule: 'FREQ=WEEKLY;INTERVAL=1;UNTIL=20270125T110000Z',
        exdates: ['2026-11-16T12:00:00', '2027-01-04T12:00:00', '2027-01-11T12:00:00'],
      },
    ]);
  });

  it('bridges a gap of three skipped weeks but splits at four', () => {
    expect(detectSeries(weekly('2026-04-13', '10:00:00', [0, 1, 2, 6, 7]), BERLIN)).toHaveLength(1);
    const split = detectSeries(weekly('2026-04-13', '10:00:00', [0, 1, 2, 7, 8]), BERLIN);
    expect(split.map((series) => [series.dtstart, series.exdates.length])).toEqual([
      ['2026-04-13T10:00:00', 0],
      ['2026-06-01T10:00:00', 0],
    ]);
  });

  it('detects a biweekly lecture with INTERVAL=2 and its skipped dates', () => {
    const result = detectSeries(weekly('2026-04-15', '14:00:00', [0, 2, 4, 8, 10]), BERLIN);
    expect(result).toEqual([
      {
        dtstart: '2026-04-15T14:00:00',
        recurrenceRule: 'FREQ=WEEKLY;INTERVAL=2;UNTIL=20260624T120000Z',
        exdates: ['2026-05-27T14:00:00'],
      },
    ]);
  });

  it('splits a biweekly rhythm that shifts by a week instead of falling back to weekly with many EXDATEs', () => {
    const result = detectSeries(weekly('2026-04-15', '14:00:00', [0, 2, 4, 7, 9, 11]), BERLIN);
    expect(result.map((series) => series.recurrenceRule?.slice(0, 25))).toEqual([
      'FREQ=WEEKLY;INTERVAL=2;UN',
      'FREQ=WEEKLY;INTERVAL=2;UN',
    ]);
  });
});

describe('pathological sets', () => {
  it('gives two one-offs for two dates a year apart, not a series with 51 EXDATEs or INTERVAL=52', () => {
    const result = detectSeries(['2026-05-04T10:00:00', '2027-05-03T10:00:00'], BERLIN);
    expect(result.map((series) => series.recurrenceRule)).toEqual([null, null]);
  });

  it('never leaves more than three consecutive skipped occurrences inside a series', () => {
    const weeks = [0, 1, 5, 6, 7, 30, 31, 33, 60, 61, 62, 63, 100];
    for (const series of detectSeries(weekly('2026-01-05', '09:00:00', weeks), BERLIN)) {
      expect(series.exdates.length).toBeLessThanOrEqual(3);
    }
  });
});

describe('input handling', () => {
  it('ignores order and duplicates and returns descriptions sorted by dtstart', () => {
    const starts = weekly('2026-04-13', '10:00:00', [3, 0, 2, 1, 2]);
    expect(detectSeries(starts, BERLIN)).toEqual(detectSeries([...new Set(starts)].sort(), BERLIN));
  });

  it('treats different weekdays or times of day as separate slots', () => {
    const starts = [...weekly('2026-04-13', '10:00:00', [0, 1, 2]), ...weekly('2026-04-14', '08:00:00', [0, 1])];
    expect(detectSeries(starts, BERLIN).map((series) => series.dtstart)).toEqual([
      '2026-04-13T10:00:00',
      '2026-04-14T08:00:00',
    ]);
  });

  it('rejects malformed local times', () => {
    expect(() => detectSeries(['2026-04-13 10:00'], BERLIN)).toThrow(RangeError);
  });
});

describe('rule strings', () => {
  it('parse with rrulestr next to a DTSTART with TZID', () => {
    const [series] = detectSeries(weekly('2026-03-02', '10:00:00', [0, 1, 2, 4, 6, 7]), BERLIN);
    const text = `DTSTART;TZID=${BERLIN}:20260302T100000\nRRULE:${series?.recurrenceRule}`;
    const rule = rrulestr(text);
    expect(rule.options.interval).toBe(1);
    expect(rule.options.until?.toISOString()).toBe('2026-04-20T08:00:00.000Z');
  });
});
