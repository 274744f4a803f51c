import { describe, expect, it } from 'vitest';
import { escapeText, foldLine } from '../src/ical/content-line.js';

describe('escapeText', () => {
  it('escapes backslash, semicolon, comma and every line break style', () => {
    expect(escapeText('a\\b;c,d\ne\r\nf\rg')).toBe('a\\\\b\\;c\\,d\\ne\\nf\\ng');
  });

  it('drops control characters TEXT does not allow but keeps tabs', () => {
    expect(escapeText('a\u0000b\u0007c\td\u007f')).toBe('abc\td');
  });
});

describe('foldLine', () => {
  it('leaves a short line alone apart from the CRLF', () => {
    expect(foldLine('SUMMARY:Kurz')).toBe('SUMMARY:Kurz\r\n');
  });

  it('folds at exactly 75 octets, continuation lines starting with a space', () => {
    const folded = foldLine(`DESCRIPTION:${'x'.repeat(200)}`);
    const lines = folded.slice(0, -2).split('\r\n');
    expect(lines.map((line) => line.length)).toEqual([75, 75, 64]);
    expect(lines.slice(1).every((line) => line.startsWith(' '))).toBe(true);
    expect(lines.map((line, index) => (index === 0 ? line : line.slice(1))).join('')).toBe(`DESCRIPTION:${'x'.repeat(200)}`);
  });

  it('moves a multi-byte character to the next line rather than splitting it', () => {
    // 74 ASCII octets, then 'ü' (2 octets) would end at octet 76.
    const folded = foldLine(`${'a'.repeat(74)}ü`);
    expect(folded).toBe(`${'a'.repeat(74)}\r\n ü\r\n`);
    const emoji = foldLine(`${'a'.repeat(73)}😀`);
    expect(emoji).toBe(`${'a'.repeat(73)}\r\n 😀\r\n`);
  });
});
