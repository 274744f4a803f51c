/** RFC 5545 text rules: TEXT value escaping and folding at 75 octets without splitting UTF-8 sequences. */

const MAX_OCTETS = 75;
const SPECIAL = /[\\;,\n]/;

export function escapeText(value: string): string {
  if (!SPECIAL.test(value)) return value;
  return value
    .replace(/\\/g, '\\\\')
    .replace(/;/g, '\\;')
    .replace(/,/g, '\\,')
    .replace(/\r?\n/g, '\\n');
}

/** Splits a content line into physical lines of at most 75 octets; continuation lines start with a space. */
export function foldLine(line: string): string[] {
  if (line.length <= MAX_OCTETS / 4 || Buffer.byteLength(line, 'utf8') <= MAX_OCTETS) return [line];
  const lines: string[] = [];
  let current = '';
  let octets = 0;
  for (const character of line) {
    const size = utf8Octets(character.codePointAt(0) ?? 0);
    if (octets + size > MAX_OCTETS) {
      lines.push(current);
      current = ' ';
      octets = 1;
    }
    current += character;
    octets += size;
  }
  lines.push(current);
  return lines;
}

function utf8Octets(codePoint: number): number {
  return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
}
