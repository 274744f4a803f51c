import { describe, expect, it } from 'vitest';
import { etagMatches, formatHttpDate, isNotModified } from '@timetable/cache';
import { parseHttpDate } from '@timetable/cache/testing';

const MODIFIED = 'Tue, 10 Mar 2026 07:30:00 GMT';
const modifiedAt = Date.UTC(2026, 2, 10, 7, 30, 0);
const dated = { etag: '"abc"', lastModified: MODIFIED };

describe('HTTP-date', () => {
  it('is written as an IMF-fixdate, to the second', () => {
    expect(formatHttpDate(new Date('2026-03-10T07:30:00.999Z'))).toBe(MODIFIED);
    expect(formatHttpDate(new Date('1994-11-06T08:49:37Z'))).toBe('Sun, 06 Nov 1994 08:49:37 GMT');
  });

  it.each([
    ['Sun, 06 Nov 1994 08:49:37 GMT', Date.UTC(1994, 10, 6, 8, 49, 37)],
    ['Sunday, 06-Nov-94 08:49:37 GMT', Date.UTC(1994, 10, 6, 8, 49, 37)],
    ['Sun Nov  6 08:49:37 1994', Date.UTC(1994, 10, 6, 8, 49, 37)],
    ['Tue Mar 10 07:30:00 2026', modifiedAt],
  ])('reads the form of %j', (text, instant) => {
    expect(parseHttpDate(text, new Date('2026-01-01T00:00:00Z'))).toBe(instant);
  });

  it('reads a two-digit year more than 50 years ahead as the most recent past one', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(parseHttpDate('Tuesday, 10-Mar-26 07:30:00 GMT', now)).toBe(modifiedAt);
    expect(parseHttpDate('Wednesday, 01-Jan-76 00:00:00 GMT', now)).toBe(Date.UTC(2076, 0, 1));
    expect(parseHttpDate('Saturday, 01-Jan-77 00:00:00 GMT', now)).toBe(Date.UTC(1977, 0, 1));
  });

  it.each([
    'yesterday',
    '',
    '2026-03-10T07:30:00Z',
    '1773127800',
    'Tue, 10 Mar 2026 07:30:00 UTC',
    'Tue, 10 Mar 2026 07:30:00 +0000',
    'tue, 10 mar 2026 07:30:00 gmt',
    'Tue, 10 Mar 2026 07:30 GMT',
    'Tue, 1 Mar 2026 07:30:00 GMT',
    'Mon, 30 Feb 2026 07:30:00 GMT',
    'Tue, 10 Mar 2026 24:00:00 GMT',
    'Tue, 10 Mar 2026 07:60:00 GMT',
    ' Tue, 10 Mar 2026 07:30:00 GMT',
  ])('is not %j', (text) => {
    expect(parseHttpDate(text)).toBeNull();
  });
});

describe('If-None-Match', () => {
  it.each([
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    ['*', true],
    ['"abd"', false],
    [undefined, false],
    ['', false],
  ])('%s matches "abc": %s', (header, expected) => {
    expect(etagMatches(header, '"abc"')).toBe(expected);
  });
});

describe('a conditional GET is answered 304', () => {
  const notModified = (headers: Record<string, string>, validators = dated) => isNotModified(headers, validators);

  it('when If-Modified-Since is at or after Last-Modified, to the second', () => {
    expect(notModified({ 'if-modified-since': MODIFIED })).toBe(true);
    expect(notModified({ 'if-modified-since': 'Tue, 10 Mar 2026 07:30:01 GMT' })).toBe(true);
    expect(notModified({ 'if-modified-since': 'Wed, 10 Mar 2027 00:00:00 GMT' })).toBe(true);
    expect(notModified({ 'if-modified-since': 'Tue, 10 Mar 2026 07:29:59 GMT' })).toBe(false);
  });

  it('in any of the three date forms', () => {
    expect(notModified({ 'if-modified-since': 'Tuesday, 10-Mar-26 07:30:00 GMT' })).toBe(true);
    expect(notModified({ 'if-modified-since': 'Tue Mar 10 07:30:00 2026' })).toBe(true);
  });

  it('never for a malformed If-Modified-Since, which is ignored', () => {
    for (const since of ['yesterday', '2027-01-01T00:00:00Z', '', 'Tue, 10 Mar 2026 07:30:00 GMT, Wed, 11 Mar 2026 07:30:00 GMT']) {
      expect(notModified({ 'if-modified-since': since })).toBe(false);
    }
  });

  it('never on If-Modified-Since for an answer without Last-Modified', () => {
    expect(notModified({ 'if-modified-since': MODIFIED }, { etag: '"abc"', lastModified: '' })).toBe(false);
  });

  it('by If-None-Match alone when both are present', () => {
    expect(notModified({ 'if-none-match': '"abc"', 'if-modified-since': 'Mon, 01 Jan 2024 00:00:00 GMT' })).toBe(true);
    expect(notModified({ 'if-none-match': '"old"', 'if-modified-since': MODIFIED })).toBe(false);
    expect(notModified({ 'if-none-match': '"abc"' })).toBe(true);
  });
});
