// Property: detectSeries then expandSeries gives back exactly the input occurrences, DST weeks included.
import fc from 'fast-check';
import rrulePackage from 'rrule';
import { describe, expect, it } from 'vitest';
import { addDaysToLocalDate } from '../src/testing/index.js';
import {
  detectSeries,
  expandSeries,
  localToInstant,
  type LocalDateTime,
  type SeriesDescription,
} from '../src/index.js';

const { rrulestr } = rrulePackage;

// Sundays on which the zones change offset, so early-morning times hit gaps and folds.
const DST_SUNDAYS: Record<string, string[]> = {
  'Europe/Berlin': ['2025-10-26', '2026-03-29', '2026-10-25', '2027-03-28'],
  'America/New_York': ['2025-11-02', '2026-03-08', '2026-11-01', '2027-03-14'],
  'Australia/Sydney': ['2025-10-05', '2026-04-05', '2026-10-04', '2027-04-04'],
};

const pad = (value: number): string => String(value).padStart(2, '0');

/** Any weekday and quarter hour between 2025 and 2027: spans both DST changes and two year boundaries. */
const anySlot = fc
  .record({ day: fc.integer({ min: 0, max: 900 }), hour: fc.integer({ min: 0, max: 23 }), quarter: fc.integer({ min: 0, max: 3 }) })
  .map(({ day, hour, quarter }) => `${addDaysToLocalDate('2025-03-01', day)}T${pad(hour)}:${pad(quarter * 15)}:00`);

/** A Sunday night a few weeks around a DST change, at times inside and next to the gap or fold. */
const dstSlot = (timeZone: string): fc.Arbitrary<LocalDateTime> =>
  fc
    .record({
      sunday: fc.constantFrom(...(DST_SUNDAYS[timeZone] ?? [])),
      weeksBefore: fc.integer({ min: 0, max: 12 }),
      time: fc.constantFrom('01:30:00', '02:00:00', '02:30:00', '03:00:00', '03:30:00'),
    })
    .map(({ sunday, weeksBefore, time }) => `${addDaysToLocalDate(sunday, -7 * weeksBefore)}T${time}`);

/** Weekly or n-weekly runs with random holiday gaps, stray extra dates, or a single date. */
const pattern = (timeZone: string): fc.Arbitrary<LocalDateTime[]> =>
  fc
    .record({
      first: fc.oneof(anySlot, dstSlot(timeZone)),
      interval: fc.constantFrom(1, 1, 2, 3),
      length: fc.integer({ min: 1, max: 30 }),
      holidays: fc.uniqueArray(fc.integer({ min: 1, max: 29 }), { maxLength: 6 }),
      strays: fc.uniqueArray(fc.integer({ min: -80, max: 120 }), { maxLength: 3 }),
    })
    .map(({ first, interval, length, holidays, strays }) => {
      const [date, time] = first.split('T') as [string, string];
      const weeks = Array.from({ length }, (_, index) => index * interval).filter((_, index) => !holidays.includes(index));
      return [...weeks, ...strays].map((week) => `${addDaysToLocalDate(date, 7 * week)}T${time}`);
    });

function expectedInstants(starts: readonly LocalDateTime[], timeZone: string): number[] {
  return [...new Set(starts)].map((local) => localToInstant(local, timeZone).getTime()).sort((a, b) => a - b);
}

function longestSkippedRun(series: SeriesDescription, intervalOf: (rule: string) => number): number {
  const step = 7 * 86_400_000 * (series.recurrenceRule === null ? 1 : intervalOf(series.recurrenceRule));
  let longest = 0;
  let run = 0;
  let previous = Number.NEGATIVE_INFINITY;
  for (const exdate of series.exdates) {
    const at = Date.parse(`${exdate}Z`);
    run = at - previous === step ? run + 1 : 1;
    longest = Math.max(longest, run);
    previous = at;
  }
  return longest;
}

describe.each(['Europe/Berlin', 'America/New_York', 'Australia/Sydney'])('in %s', (timeZone) => {
  it('expanding the detected series gives back exactly the input occurrences, in order', () => {
    fc.assert(
      fc.property(fc.array(pattern(timeZone), { minLength: 1, maxLength: 3 }), (patterns) => {
        const starts = patterns.flat();
        const descriptions = detectSeries(starts, timeZone);
        const expanded = descriptions.flatMap((series) => {
          const occurrences = expandSeries({ ...series, durationMinutes: 90 }, timeZone);
          const instants = occurrences.map((occurrence) => occurrence.start.getTime());
          expect(instants).toEqual([...instants].sort((a, b) => a - b));
          return instants;
        });
        expect(expanded.sort((a, b) => a - b)).toEqual(expectedInstants(starts, timeZone));
      }),
      { numRuns: 300 },
    );
  });

  it('writes rules rrulestr parses and keeps each series free of long runs of EXDATEs', () => {
    const intervalOf = (rule: string): number => rrulestr(`RRULE:${rule}`).options.interval;
    fc.assert(
      fc.property(fc.array(pattern(timeZone), { minLength: 1, maxLength: 3 }), (patterns) => {
        for (const series of detectSeries(patterns.flat(), timeZone)) {
          if (series.recurrenceRule === null) continue;
          const dtstart = series.dtstart.replace(/[-:]/g, '');
          expect(() => rrulestr(`DTSTART;TZID=${timeZone}:${dtstart}\nRRULE:${series.recurrenceRule}`)).not.toThrow();
          expect(longestSkippedRun(series, intervalOf)).toBeLessThanOrEqual(3);
        }
      }),
      { numRuns: 200 },
    );
  });
});
