import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoWeekOf, localToInstant, weekLabelClock } from '../src/index.js';
import { addDaysToLocalDate } from '../src/testing/index.js';

const BERLIN = 'Europe/Berlin';
/**
 * Berlin, a zone whose DST changes at midnight (Sao Paulo until 2019), one that skipped a whole day at the
 * date line (Apia, 30 December 2011), quarter-hour and half-hour offsets, and UTC.
 */
const ZONES = [BERLIN, 'America/Sao_Paulo', 'Pacific/Apia', 'Asia/Kathmandu', 'America/St_Johns', 'UTC'];
const FROM = Date.UTC(1990, 0, 1);
const TO = Date.UTC(2060, 0, 1);
const HOUR_MS = 3_600_000;

/** Instants within 14 hours (or a few milliseconds) of one Monday midnight in the zone (1990-01-01 was one). */
function aroundOneMonday(zone: string): fc.Arbitrary<number[]> {
  const delta = fc.oneof(fc.integer({ min: -14 * HOUR_MS, max: 14 * HOUR_MS }), fc.integer({ min: -2, max: 2 }));
  return fc
    .tuple(fc.integer({ min: 0, max: 3_500 }), fc.array(delta, { minLength: 1, maxLength: 40 }))
    .map(([weeks, deltas]) => {
      const midnight = localToInstant(`${addDaysToLocalDate('1990-01-01', 7 * weeks)}T00:00:00`, zone).getTime();
      return deltas.map((offset) => midnight + offset);
    });
}

/** A clock that reads the instants one by one, in the order given. */
function steppedClock(instants: number[]): () => Date {
  let next = 0;
  return () => new Date(instants[next++] ?? Number.NaN);
}

describe('the week label clock', () => {
  it('answers isoWeekOf at every instant, whatever order the clock shows them in', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES).chain((zone) => fc.tuple(fc.constant(zone), fc.oneof(aroundOneMonday(zone), fc.array(fc.integer({ min: FROM, max: TO }))))),
        ([zone, instants]) => {
          const current = weekLabelClock(zone, steppedClock(instants));
          for (const instant of instants) expect(current()).toBe(isoWeekOf(new Date(instant), zone).label);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('agrees with isoWeekOf to the millisecond around Monday midnights, DST changes and a skipped day', () => {
    const instants = [
      // Sunday 23:59:59.999 and Monday 00:00 in Berlin, in a plain week and around both DST changes of 2026.
      ...['2026-12-06T23:59:59', '2026-12-07T00:00:00', '2026-03-29T23:59:59', '2026-03-30T00:00:00', '2026-10-25T23:59:59', '2026-10-26T00:00:00'].map(
        (local) => localToInstant(local, BERLIN).getTime(),
      ),
      Date.UTC(2026, 2, 29, 0, 59, 59, 999),
      Date.UTC(2026, 2, 29, 1, 0, 0, 0),
      Date.UTC(2026, 9, 25, 0, 59, 59, 999),
      Date.UTC(2026, 9, 25, 1, 0, 0, 0),
    ];
    const aroundEach = instants.flatMap((instant) => [instant - 1, instant, instant + 1, instant + 999]);
    for (const zone of ZONES) {
      const current = weekLabelClock(zone, steppedClock(aroundEach));
      for (const instant of aroundEach) expect(current()).toBe(isoWeekOf(new Date(instant), zone).label);
    }
  });

  it('changes from the Sunday week to the Monday week at Berlin midnight', () => {
    const sunday = localToInstant('2026-12-06T23:59:59', BERLIN).getTime() + 999;
    const current = weekLabelClock(BERLIN, steppedClock([sunday, sunday + 1, sunday]));
    expect([current(), current(), current()]).toEqual(['2026-W49', '2026-W50', '2026-W49']);
  });
});
