import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoWeekOf, parseWeekLabel, weekExists, weekRange } from '../src/index.js';
import { WEEK_PATTERN, formatWeekLabel, weeksInIsoYear } from '../src/iso-week.js';
import { addDaysToLocalDate, isoWeekOfDate, mondayOfIsoWeek } from '../src/testing/index.js';

const BERLIN = 'Europe/Berlin';
const HOUR_MS = 3_600_000;

function hoursOf(range: { start: Date; endExclusive: Date }): number {
  return (range.endExclusive.getTime() - range.start.getTime()) / HOUR_MS;
}

describe('week labels', () => {
  it('accepts exactly the spec pattern', () => {
    for (const good of ['2026-W01', '2026-W09', '2026-W10', '2026-W49', '2026-W53']) expect(WEEK_PATTERN.test(good)).toBe(true);
    for (const bad of ['2026-W00', '2026-W54', '2026-W1', '2026W01', '26-W01', ' 2026-W01', '2026-W01 ', '2026-w01']) {
      expect(WEEK_PATTERN.test(bad)).toBe(false);
      expect(parseWeekLabel(bad)).toBeNull();
    }
  });

  it('parses without checking that the week exists', () => {
    expect(parseWeekLabel('2026-W05')).toEqual({ year: 2026, week: 5 });
    expect(parseWeekLabel('2025-W53')).toEqual({ year: 2025, week: 53 });
  });

  it('formats with four-digit years and two-digit weeks', () => {
    expect(formatWeekLabel(2026, 5)).toBe('2026-W05');
    expect(formatWeekLabel(2026, 53)).toBe('2026-W53');
    expect(() => formatWeekLabel(2025, 53)).toThrow(RangeError);
  });
});

describe('long years', () => {
  it('has 53 weeks when the year starts on Thursday, or on Wednesday in a leap year', () => {
    expect(weeksInIsoYear(2026)).toBe(53); // starts on a Thursday
    expect(weeksInIsoYear(2020)).toBe(53); // leap year starting on a Wednesday
    expect(weeksInIsoYear(2015)).toBe(53);
    expect(weeksInIsoYear(2025)).toBe(52);
    expect(weeksInIsoYear(2027)).toBe(52);
    expect(weeksInIsoYear(2024)).toBe(52);
  });

  it('knows that 2026-W53 exists and 2025-W53 does not', () => {
    expect(weekExists(2026, 53)).toBe(true);
    expect(weekExists(2025, 53)).toBe(false);
    expect(weekExists(2026, 0)).toBe(false);
    expect(weekExists(2026, 1.5)).toBe(false);
  });

  it('agrees with the week of 28 December, which is always the last week', () => {
    for (let year = 1990; year <= 2060; year++) {
      expect(isoWeekOfDate(`${year}-12-28`).week).toBe(weeksInIsoYear(year));
    }
  });
});

describe('a week belongs to the year of its Thursday', () => {
  it('puts 2026-12-28 .. 2027-01-03 into 2026-W53', () => {
    expect(mondayOfIsoWeek(2026, 53)).toBe('2026-12-28');
    expect(isoWeekOfDate('2026-12-28').label).toBe('2026-W53');
    expect(isoWeekOfDate('2027-01-03').label).toBe('2026-W53');
    expect(isoWeekOfDate('2027-01-04').label).toBe('2027-W01');
    expect(mondayOfIsoWeek(2027, 1)).toBe('2027-01-04');
  });

  it('puts early January into the previous year and late December into the next when the Thursday says so', () => {
    expect(isoWeekOfDate('2021-01-03').label).toBe('2020-W53');
    expect(isoWeekOfDate('2024-12-30').label).toBe('2025-W01');
    expect(isoWeekOfDate('2026-01-01').label).toBe('2026-W01');
    expect(mondayOfIsoWeek(2026, 1)).toBe('2025-12-29');
  });

  it('uses the local date of the instant in the zone', () => {
    expect(isoWeekOf(new Date('2027-01-03T23:30:00Z'), BERLIN)).toEqual({ year: 2027, week: 1, label: '2027-W01' });
    expect(isoWeekOf(new Date('2027-01-03T22:59:59Z'), BERLIN).label).toBe('2026-W53');
  });

  it('round-trips Monday and label for any date (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200 * 366 }), (offset) => {
        const date = addDaysToLocalDate('1950-01-01', offset);
        const { year, week } = isoWeekOfDate(date);
        const monday = mondayOfIsoWeek(year, week);
        const daysSinceMonday = (Date.parse(date) - Date.parse(monday)) / 86_400_000;
        return weekExists(year, week) && daysSinceMonday >= 0 && daysSinceMonday < 7;
      }),
    );
  });
});

describe('weekRange', () => {
  it('runs from Monday 00:00 to the next Monday 00:00 local, end being the last millisecond', () => {
    const range = weekRange(2026, 5, BERLIN);
    expect(range.start.toISOString()).toBe('2026-01-25T23:00:00.000Z');
    expect(range.endExclusive.toISOString()).toBe('2026-02-01T23:00:00.000Z');
    expect(range.end.toISOString()).toBe('2026-02-01T22:59:59.999Z');
    expect(hoursOf(range)).toBe(168);
  });

  it('spans the year boundary for 2026-W53', () => {
    const range = weekRange(2026, 53, BERLIN);
    expect(range.start.toISOString()).toBe('2026-12-27T23:00:00.000Z');
    expect(range.end.toISOString()).toBe('2027-01-03T22:59:59.999Z');
    expect(weekRange(2027, 1, BERLIN).start).toEqual(range.endExclusive);
  });

  it('is 167 hours in the spring-forward week 2026-W13', () => {
    const range = weekRange(2026, 13, BERLIN);
    expect(range.start.toISOString()).toBe('2026-03-22T23:00:00.000Z');
    expect(range.endExclusive.toISOString()).toBe('2026-03-29T22:00:00.000Z');
    expect(hoursOf(range)).toBe(167);
  });

  it('is 169 hours in the fall-back week 2026-W43', () => {
    const range = weekRange(2026, 43, BERLIN);
    expect(range.start.toISOString()).toBe('2026-10-18T22:00:00.000Z');
    expect(range.endExclusive.toISOString()).toBe('2026-10-25T23:00:00.000Z');
    expect(hoursOf(range)).toBe(169);
  });

  it('rejects a week that does not exist', () => {
    expect(() => weekRange(2025, 53, BERLIN)).toThrow(RangeError);
  });

  it('starts at the first instant of a Monday whose midnight does not exist', () => {
    // Iran moved its clocks from 00:00 to 01:00 on Monday 2021-03-22.
    const range = weekRange(2021, 12, 'Asia/Tehran');
    expect(range.start.toISOString()).toBe('2021-03-21T20:30:00.000Z');
    expect(hoursOf(range)).toBe(167);
  });
});
