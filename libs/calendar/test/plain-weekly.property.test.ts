// The direct computation for plain weekly rules must agree with rrule on every rule of that shape.
import fc from 'fast-check';
import rrulePackage from 'rrule';
import { describe, expect, it } from 'vitest';
import { isPlainWeekly, plainWeeklyStarts, type FloatingBounds } from '../src/recurrence/plain-weekly.js';

const { RRule } = rrulePackage;
const DAY = 86_400_000;
const BASE = Date.UTC(2025, 0, 6, 10, 0, 0);

describe('plain weekly rules', () => {
  it('are recognised only without BY* parts', () => {
    expect(isPlainWeekly(RRule.parseString('FREQ=WEEKLY;INTERVAL=2;UNTIL=20260713T080000Z'))).toBe(true);
    expect(isPlainWeekly(RRule.parseString('FREQ=WEEKLY;COUNT=3;WKST=MO'))).toBe(true);
    expect(isPlainWeekly(RRule.parseString('FREQ=WEEKLY;BYDAY=MO,WE;COUNT=3'))).toBe(false);
    expect(isPlainWeekly(RRule.parseString('FREQ=DAILY;COUNT=3'))).toBe(false);
  });

  it('give the same floating starts as rrule (property)', () => {
    const bound = fc.option(fc.integer({ min: -100, max: 800 }).map((days) => BASE + days * DAY + 3_600_000 * (days % 24)));
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 400 }),
        fc.integer({ min: 1, max: 4 }),
        bound,
        fc.option(fc.integer({ min: 1, max: 60 })),
        fc.option(fc.tuple(bound, bound)),
        (dtstartDays, interval, until, count, window) => {
          fc.pre(until !== null || count !== null || (window !== null && window[0] !== null && window[1] !== null));
          const dtstart = BASE + dtstartDays * DAY;
          const from = window?.[0] ?? null;
          const to = window?.[1] ?? null;
          const windowed = from !== null && to !== null;
          const bounds: FloatingBounds = { until, count, from: windowed ? from : null, to: windowed ? to : null };
          const rule = new RRule(
            { freq: RRule.WEEKLY, interval, dtstart: new Date(dtstart), until: until === null ? null : new Date(until), count },
            true,
          );
          const expected = (windowed ? rule.between(new Date(from), new Date(to), true) : rule.all()).map((date) => date.getTime());
          expect(plainWeeklyStarts(dtstart, interval, bounds)).toEqual(expected);
        },
      ),
      { numRuns: 500 },
    );
  });
});
