import { describe, expect, it } from 'vitest';
import { addDaysToLocalDate, isoWeekdayOf, localDateTimeToFloatingMs } from '../src/local-date-time.js';

describe('wall-clock arithmetic', () => {
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
    expect(() => localDateTimeToFloatingMs('2026-01-01T10:60:00')).toThrow(RangeError);
  });
});
