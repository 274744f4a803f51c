import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { calendarBodyHash, jsonBodyHash } from '../src/features/read/body-hash.js';

const ICAL = 'text/calendar; charset=UTF-8';
const bytes = (lines: string[]) => Buffer.from(lines.map((line) => `${line}\r\n`).join(''), 'utf8');

const feed = (uid: string, stamp: string, location = 'B0.11') =>
  bytes([
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'BEGIN:VEVENT',
    `UID:${uid}`,
    ' -continued-uid',
    `DTSTAMP:${stamp}`,
    'DTSTART;TZID=Europe/Berlin:20240325T080000',
    'DTEND;TZID=Europe/Berlin:20240325T111500',
    'SUMMARY:ML',
    `LOCATION:${location}`,
    'DESCRIPTION:Maschinelles Lernen\\nProf. Dr. Anna Müller\\nINF-M 1',
    'END:VEVENT',
    'BEGIN:VEVENT',
    `DTSTAMP:${stamp}`,
    `UID:${uid}-2`,
    'DTSTART;TZID=Europe/Berlin:20240401T080000',
    'DTEND;TZID=Europe/Berlin:20240401T111500',
    'SUMMARY:ML',
    'END:VEVENT',
    'END:VCALENDAR',
  ]);

describe('the hash of a group calendar', () => {
  it('stays what earlier versions stored, so an upgrade parses no unchanged feed again', () => {
    // Computed by the implementation of 2026-11-25, which hashed the kept pieces one by one.
    expect(calendarBodyHash(feed('a1b2@starplan', '20261125T010000Z'), ICAL, 'Europe/Berlin')).toBe(
      'f38c8fcfe9e956a2870c122a952fea52d2ec8672bcbc42162c650d205ace9c3e',
    );
  });

  it('ignores the UIDs and DTSTAMPs StarPlan changes on every export, folded lines included', () => {
    const first = calendarBodyHash(feed('a1b2@starplan', '20261125T010000Z'), ICAL, 'Europe/Berlin');
    expect(calendarBodyHash(feed('ffff@starplan', '20261125T020000Z'), ICAL, 'Europe/Berlin')).toBe(first);
  });

  it('sees every other byte, the Content-Type and the salt', () => {
    const first = calendarBodyHash(feed('a', 's'), ICAL, 'Europe/Berlin');
    expect(calendarBodyHash(feed('a', 's', 'B0.12'), ICAL, 'Europe/Berlin')).not.toBe(first);
    expect(calendarBodyHash(feed('a', 's'), 'text/calendar; charset=ISO-8859-1', 'Europe/Berlin')).not.toBe(first);
    expect(calendarBodyHash(feed('a', 's'), ICAL, 'UTC')).not.toBe(first);
  });

  it('keeps the first line and lines that only resemble UID or DTSTAMP', () => {
    const hashOf = (lines: string[]) => calendarBodyHash(bytes(lines), ICAL, '');
    expect(hashOf(['UID:1', 'BEGIN:VCALENDAR'])).not.toBe(hashOf(['UID:2', 'BEGIN:VCALENDAR']));
    expect(hashOf(['BEGIN:VCALENDAR', 'X-UID:1'])).not.toBe(hashOf(['BEGIN:VCALENDAR', 'X-UID:2']));
    expect(hashOf(['BEGIN:VCALENDAR', 'UID;X=1:1'])).not.toBe(hashOf(['BEGIN:VCALENDAR', 'UID;X=1:2']));
    expect(hashOf(['BEGIN:VCALENDAR', 'SUMMARY:a', ' UID:1'])).not.toBe(hashOf(['BEGIN:VCALENDAR', 'SUMMARY:a', ' UID:2']));
  });

  it('hashes a body in a charset that is not ASCII-compatible whole', () => {
    const utf16 = (uid: string) => Buffer.from(`BEGIN:VCALENDAR\r\nUID:${uid}\r\nEND:VCALENDAR\r\n`, 'utf16le');
    expect(calendarBodyHash(utf16('1'), 'text/calendar; charset=UTF-16LE', '')).not.toBe(calendarBodyHash(utf16('2'), 'text/calendar; charset=UTF-16LE', ''));
  });
});

/** What calendarBodyHash is meant to compute, written line by line for clarity rather than speed. */
function referenceCalendarHash(text: string, contentType: string, salt: string): string {
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const kept: string[] = [];
  let skipping = false;
  lines.forEach((line, index) => {
    const continuation = line.startsWith(' ') || line.startsWith('\t');
    if (skipping && continuation) return;
    skipping = index > 0 && (line.startsWith('UID:') || line.startsWith('DTSTAMP:'));
    if (!skipping) kept.push(line);
  });
  return createHash('sha256').update(`${contentType}\n${salt}\n`).update(Buffer.from(kept.join(''), 'latin1')).digest('hex');
}

describe('the hash of a group calendar, against a line-by-line reference', () => {
  it('agrees on seeded random feeds: volatile lines first or last, folded, adjacent, unterminated, LF or CRLF', () => {
    const pieces = ['UID:x', 'DTSTAMP:1', ' cont', '\tcont', 'SUMMARY:UID:y', 'X-UID:z', 'DTSTAMPED:2', 'UID', '', 'BEGIN:VEVENT'];
    let state = 42;
    const random = (below: number) => {
      state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
      return (state >>> 8) % below;
    };
    for (let run = 0; run < 2_000; run += 1) {
      const ending = random(2) === 0 ? '\n' : '\r\n';
      const lines = Array.from({ length: random(12) }, () => `${pieces[random(pieces.length)]}${random(3) === 0 ? random(100) : ''}`);
      const text = lines.join(ending) + (random(3) === 0 ? '' : ending);
      expect(calendarBodyHash(Buffer.from(text, 'latin1'), ICAL, 'Europe/Berlin'), JSON.stringify(text)).toBe(
        referenceCalendarHash(text, ICAL, 'Europe/Berlin'),
      );
    }
  });
});

describe('the hash of a JSON list', () => {
  it('covers the bytes and the Content-Type', () => {
    const body = Buffer.from('[[{"id":1}]]', 'latin1');
    expect(jsonBodyHash(body, 'application/json; charset=ISO-8859-1')).toBe(jsonBodyHash(Buffer.from(body), 'application/json; charset=ISO-8859-1'));
    expect(jsonBodyHash(body, 'application/json; charset=UTF-8')).not.toBe(jsonBodyHash(body, 'application/json; charset=ISO-8859-1'));
    expect(jsonBodyHash(Buffer.from('[[{"id":2}]]'), null)).not.toBe(jsonBodyHash(body, null));
  });
});
