import { describe, expect, it } from 'vitest';
import { excludedStarts, expandSeries, type SeriesToExpand } from '../src/index.js';

const BERLIN = 'Europe/Berlin';

function isoStarts(series: SeriesToExpand, timeZone = BERLIN, window?: { from: Date; to: Date }): string[] {
  return expandSeries(series, timeZone, window).map((occurrence) => occurrence.start.toISOString());
}

describe('one-offs', () => {
  it('expands to the single occurrence with its wall-clock end', () => {
    const series = { dtstart: '2026-05-04T10:00:00', recurrenceRule: null, exdates: [], durationMinutes: 90 };
    expect(expandSeries(series, BERLIN)).toEqual([
      { start: new Date('2026-05-04T08:00:00Z'), end: new Date('2026-05-04T09:30:00Z'), localDate: '2026-05-04' },
    ]);
  });
});

describe('weekly series across DST changes', () => {
  const series: SeriesToExpand = {
    dtstart: '2026-03-16T10:00:00',
    recurrenceRule: 'FREQ=WEEKLY;INTERVAL=1;UNTIL=20260406T080000Z',
    exdates: [],
    durationMinutes: 90,
  };

  it('keeps the local time of day, so the UTC time moves with the offset', () => {
    expect(isoStarts(series)).toEqual([
      '2026-03-16T09:00:00.000Z',
      '2026-03-23T09:00:00.000Z',
      '2026-03-30T08:00:00.000Z',
      '2026-04-06T08:00:00.000Z',
    ]);
  });

  it('includes the last occurrence for a zone west of UTC (UNTIL is read as an instant)', () => {
    const newYork = { ...series, recurrenceRule: 'FREQ=WEEKLY;INTERVAL=1;UNTIL=20260406T140000Z' };
    expect(isoStarts(newYork, 'America/New_York')).toEqual([
      '2026-03-16T14:00:00.000Z',
      '2026-03-23T14:00:00.000Z',
      '2026-03-30T14:00:00.000Z',
      '2026-04-06T14:00:00.000Z',
    ]);
  });

  it('reads a floating UNTIL (no Z) as wall-clock time', () => {
    const floating = { ...series, recurrenceRule: 'FREQ=WEEKLY;UNTIL=20260330T100000' };
    expect(isoStarts(floating)).toHaveLength(3);
  });

  it('expands other rules through rrule, still in floating time', () => {
    const twiceAWeek = { ...series, recurrenceRule: 'FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=20260401T080000Z' };
    expect(isoStarts(twiceAWeek)).toEqual([
      '2026-03-16T09:00:00.000Z',
      '2026-03-18T09:00:00.000Z',
      '2026-03-23T09:00:00.000Z',
      '2026-03-25T09:00:00.000Z',
      '2026-03-30T08:00:00.000Z',
      '2026-04-01T08:00:00.000Z',
    ]);
  });

  it('rejects an INTERVAL below 1', () => {
    expect(() => expandSeries({ ...series, recurrenceRule: 'FREQ=WEEKLY;INTERVAL=0;COUNT=2' }, BERLIN)).toThrow(RangeError);
  });

  it('supports COUNT and INTERVAL', () => {
    const counted = { ...series, recurrenceRule: 'FREQ=WEEKLY;INTERVAL=2;COUNT=3' };
    expect(expandSeries(counted, BERLIN).map((occurrence) => occurrence.localDate)).toEqual([
      '2026-03-16',
      '2026-03-30',
      '2026-04-13',
    ]);
  });
});

describe('EXDATE', () => {
  it('removes the occurrence with exactly that local start, and only that', () => {
    const series: SeriesToExpand = {
      dtstart: '2026-04-13T10:00:00',
      recurrenceRule: 'FREQ=WEEKLY;INTERVAL=1;UNTIL=20260504T080000Z',
      exdates: ['2026-04-20T10:00:00', '2026-04-27T10:15:00'],
      durationMinutes: 60,
    };
    expect(expandSeries(series, BERLIN).map((occurrence) => occurrence.localDate)).toEqual([
      '2026-04-13',
      '2026-04-27',
      '2026-05-04',
    ]);
  });
});

describe('excludedStarts', () => {
  const iso = (dates: Date[]): string[] => dates.map((date) => date.toISOString());

  it('lists the instants of the EXDATEs the rule produces, in the offset of their own date', () => {
    const series = {
      dtstart: '2026-03-16T10:00:00',
      recurrenceRule: 'FREQ=WEEKLY;INTERVAL=1;UNTIL=20260413T080000Z',
      exdates: ['2026-04-06T10:00:00', '2026-03-23T10:00:00'],
    };
    expect(iso(excludedStarts(series, BERLIN))).toEqual(['2026-03-23T09:00:00.000Z', '2026-04-06T08:00:00.000Z']);
  });

  it('leaves out an EXDATE the rule never produces: another time of day, off the interval or past UNTIL', () => {
    const series = {
      dtstart: '2026-03-16T10:00:00',
      recurrenceRule: 'FREQ=WEEKLY;INTERVAL=2;UNTIL=20260413T080000Z',
      exdates: ['2026-03-30T10:15:00', '2026-03-23T10:00:00', '2026-04-27T10:00:00', '2026-03-30T10:00:00'],
    };
    expect(iso(excludedStarts(series, BERLIN))).toEqual(['2026-03-30T08:00:00.000Z']);
  });

  it('works for an open-ended rule and is empty for a one-off', () => {
    const open = { dtstart: '2026-01-05T10:00:00', recurrenceRule: 'FREQ=WEEKLY', exdates: ['2027-01-04T10:00:00'] };
    expect(iso(excludedStarts(open, BERLIN))).toEqual(['2027-01-04T09:00:00.000Z']);
    expect(excludedStarts({ dtstart: '2026-01-05T10:00:00', recurrenceRule: null, exdates: [] }, BERLIN)).toEqual([]);
  });
});

describe('windows', () => {
  const unbounded: SeriesToExpand = {
    dtstart: '2026-01-05T10:00:00',
    recurrenceRule: 'FREQ=WEEKLY',
    exdates: [],
    durationMinutes: 90,
  };

  it('lists occurrences starting in [from, to): from is included, to is not', () => {
    const window = { from: new Date('2026-01-12T09:00:00Z'), to: new Date('2026-01-26T09:00:00Z') };
    expect(isoStarts(unbounded, BERLIN, window)).toEqual(['2026-01-12T09:00:00.000Z', '2026-01-19T09:00:00.000Z']);
  });

  it('applies the window to rules rrule expands', () => {
    const window = { from: new Date('2026-01-12T09:00:00Z'), to: new Date('2026-01-19T09:00:00Z') };
    const twiceAWeek = { ...unbounded, recurrenceRule: 'FREQ=WEEKLY;BYDAY=MO,TH' };
    expect(isoStarts(twiceAWeek, BERLIN, window)).toEqual(['2026-01-12T09:00:00.000Z', '2026-01-15T09:00:00.000Z']);
  });

  it('refuses to expand an unbounded rule without a window', () => {
    expect(() => expandSeries(unbounded, BERLIN)).toThrow(RangeError);
  });
});

describe('end times', () => {
  it('is the wall-clock end, so a lecture over the spring-forward is an hour shorter in real time', () => {
    const night = { dtstart: '2026-03-29T01:30:00', recurrenceRule: null, exdates: [], durationMinutes: 90 };
    const [occurrence] = expandSeries(night, BERLIN);
    expect(occurrence?.start.toISOString()).toBe('2026-03-29T00:30:00.000Z');
    expect(occurrence?.end.toISOString()).toBe('2026-03-29T01:00:00.000Z');
  });

  it('never ends before it starts when the start falls into the gap', () => {
    const inGap = { dtstart: '2026-03-29T02:30:00', recurrenceRule: null, exdates: [], durationMinutes: 30 };
    const [occurrence] = expandSeries(inGap, BERLIN);
    expect(occurrence?.start.toISOString()).toBe('2026-03-29T01:30:00.000Z');
    expect(occurrence?.end.toISOString()).toBe('2026-03-29T01:30:00.000Z');
  });

  it('rejects a negative duration', () => {
    const series = { dtstart: '2026-05-04T10:00:00', recurrenceRule: null, exdates: [], durationMinutes: -5 };
    expect(() => expandSeries(series, BERLIN)).toThrow(RangeError);
  });
});
