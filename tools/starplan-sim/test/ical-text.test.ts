import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeText, foldLine } from '../src/encode/ical-text.js';
import { unescapeText } from './support/ical-lines.js';

describe('TEXT escaping', () => {
  it('escapes backslash, semicolon, comma and newline', () => {
    expect(escapeText('a\\b;c,d\ne')).toBe('a\\\\b\\;c\\,d\\ne');
  });

  it('round-trips any text', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (text) => {
      expect(unescapeText(escapeText(text))).toBe(text.replace(/\r\n/g, '\n'));
    }));
  });
});

describe('folding', () => {
  it('keeps short lines whole', () => {
    expect(foldLine('SUMMARY:ML')).toEqual(['SUMMARY:ML']);
  });

  it('gives lines of at most 75 octets that unfold to the original and never split a character', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), (text) => {
      const line = `DESCRIPTION:${text}`;
      const physical = foldLine(line);
      for (const part of physical) {
        expect(Buffer.byteLength(part, 'utf8')).toBeLessThanOrEqual(75);
        expect(Buffer.from(part, 'utf8').toString('utf8')).toBe(part);
      }
      expect(physical.map((part, index) => (index === 0 ? part : part.slice(1))).join('')).toBe(line);
      expect(physical.slice(1).every((part) => part.startsWith(' '))).toBe(true);
    }));
  });

  it('folds umlauts by octets, not characters, keeping each whole', () => {
    const physical = foldLine(`DESCRIPTION:${'ü'.repeat(60)}`);
    expect(physical.map((part) => Buffer.byteLength(part, 'utf8'))).toEqual([74, 59]); // 12 + 31 x 2 octets, then a space + 29 x 2
  });
});
