import { describe, expect, it } from 'vitest';
import { addDaysToLocalDate, addMinutesToLocal, isoWeekdayOf } from '../src/index.js';

describe('wall-clock arithmetic', () => {
  it('adds minutes on the wall clock, across midnight and month ends', () => {
    expect(addMinutesToLocal('2026-03-29T01:30:00', 90)).toBe('2026-03-29T03:00:00');
    expect(addMinutesToLocal('2026-12-31T23:15:00', 90)).toBe('2027-01-01T00:45:00');
  });

  it('adds days across leap days and year ends', () => {
    expect(addDaysToLocalDate('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDaysToLocalDate('2026-12-28', 7)).toBe('2027-01-04');
    expect(addDaysToLocalDate('2026-01-01', -1)).toBe('2025-12-31');
  });

  it('numbers weekdays the ISO way, Monday 1 to Sunday 7', () => {
    expect(isoWeekdayOf('2026-12-28')).toBe(1);
    expect(isoWeekdayOf('2027-01-03T23:59:59')).toBe(7);
  });

  it('rejects malformed dates', () => {
    expect(() => addDaysToLocalDate('2026-13-01', 1)).toThrow(RangeError);
    expect(() => addDaysToLocalDate('2026-1-01', 1)).toThrow(RangeError);
    expect(() => addMinutesToLocal('2026-01-01T10:60:00', 1)).toThrow(RangeError);
  });
});
