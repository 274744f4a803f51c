import { describe, expect, it } from 'vitest';
import { instantToLocal, localDateOf, localToInstant } from '../src/index.js';

const BERLIN = 'Europe/Berlin';

describe('localToInstant', () => {
  it('uses CET in winter and CEST in summer', () => {
    expect(localToInstant('2026-01-15T10:00:00', BERLIN).toISOString()).toBe('2026-01-15T09:00:00.000Z');
    expect(localToInstant('2026-07-15T10:00:00', BERLIN).toISOString()).toBe('2026-07-15T08:00:00.000Z');
  });

  it('moves a time in the spring-forward gap forward by the gap length', () => {
    expect(localToInstant('2026-03-29T02:30:00', BERLIN).toISOString()).toBe('2026-03-29T01:30:00.000Z');
    expect(localToInstant('2026-03-29T02:00:00', BERLIN).toISOString()).toBe('2026-03-29T01:00:00.000Z');
    expect(instantToLocal(localToInstant('2026-03-29T02:30:00', BERLIN), BERLIN)).toBe('2026-03-29T03:30:00');
  });

  it('keeps times right before and after the gap', () => {
    expect(localToInstant('2026-03-29T01:59:59', BERLIN).toISOString()).toBe('2026-03-29T00:59:59.000Z');
    expect(localToInstant('2026-03-29T03:00:00', BERLIN).toISOString()).toBe('2026-03-29T01:00:00.000Z');
  });

  it('takes the earlier (summer time) instant for a time that occurs twice at fall-back', () => {
    expect(localToInstant('2026-10-25T02:00:00', BERLIN).toISOString()).toBe('2026-10-25T00:00:00.000Z');
    expect(localToInstant('2026-10-25T02:30:00', BERLIN).toISOString()).toBe('2026-10-25T00:30:00.000Z');
    expect(localToInstant('2026-10-25T02:59:59', BERLIN).toISOString()).toBe('2026-10-25T00:59:59.000Z');
    expect(localToInstant('2026-10-25T03:00:00', BERLIN).toISOString()).toBe('2026-10-25T02:00:00.000Z');
  });

  it('applies the same rule in other zones', () => {
    expect(localToInstant('2026-03-08T02:30:00', 'America/New_York').toISOString()).toBe('2026-03-08T07:30:00.000Z');
    expect(localToInstant('2026-11-01T01:30:00', 'America/New_York').toISOString()).toBe('2026-11-01T05:30:00.000Z');
    expect(localToInstant('2026-10-04T02:30:00', 'Australia/Sydney').toISOString()).toBe('2026-10-03T16:30:00.000Z');
    expect(localToInstant('2026-04-05T02:30:00', 'Australia/Sydney').toISOString()).toBe('2026-04-04T15:30:00.000Z');
    expect(localToInstant('2026-06-01T12:00:00', 'Asia/Kathmandu').toISOString()).toBe('2026-06-01T06:15:00.000Z');
    expect(localToInstant('2026-06-01T12:00:00', 'UTC').toISOString()).toBe('2026-06-01T12:00:00.000Z');
  });

  it('rejects malformed and impossible local times', () => {
    for (const bad of ['2026-02-29T10:00:00', '2026-01-01T24:00:00', '2026-01-01 10:00:00', '2026-01-01T10:00', 'x']) {
      expect(() => localToInstant(bad, BERLIN)).toThrow(RangeError);
    }
    expect(localToInstant('2028-02-29T10:00:00', BERLIN).toISOString()).toBe('2028-02-29T09:00:00.000Z');
  });

  it('rejects an unknown zone', () => {
    expect(() => localToInstant('2026-01-01T10:00:00', 'Mars/Olympus')).toThrow(RangeError);
  });
});

describe('instantToLocal and localDateOf', () => {
  it('shows the wall clock of the zone, to the second', () => {
    expect(instantToLocal(new Date('2026-10-25T00:30:00.999Z'), BERLIN)).toBe('2026-10-25T02:30:00');
    expect(instantToLocal(new Date('2026-10-25T01:30:00Z'), BERLIN)).toBe('2026-10-25T02:30:00');
    expect(instantToLocal(new Date('2026-03-29T01:00:00Z'), BERLIN)).toBe('2026-03-29T03:00:00');
    expect(instantToLocal(new Date('2026-03-29T00:59:59Z'), BERLIN)).toBe('2026-03-29T01:59:59');
  });

  it('gives the local calendar date, not the UTC one', () => {
    expect(localDateOf(new Date('2026-01-04T23:30:00Z'), BERLIN)).toBe('2026-01-05');
    expect(localDateOf(new Date('2026-01-05T03:00:00Z'), 'America/New_York')).toBe('2026-01-04');
  });

  it('round-trips every hour of a year except the repeated fall-back hour, which reads as the first', () => {
    const start = Date.parse('2026-01-01T00:17:00Z');
    const repeatedHour = [Date.parse('2026-10-25T01:00:00Z'), Date.parse('2026-10-25T02:00:00Z')];
    const mismatches: string[] = [];
    for (let hour = 0; hour < 365 * 24; hour++) {
      const instant = start + hour * 3_600_000;
      const expected = instant >= repeatedHour[0]! && instant < repeatedHour[1]! ? instant - 3_600_000 : instant;
      const roundTrip = localToInstant(instantToLocal(new Date(instant), BERLIN), BERLIN).getTime();
      if (roundTrip !== expected) mismatches.push(new Date(instant).toISOString());
    }
    expect(mismatches).toEqual([]);
  });
});
