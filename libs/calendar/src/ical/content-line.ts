// RFC 5545 content lines: TEXT escaping (3.3.11) and folding at 75 octets (3.1).

const MAX_LINE_OCTETS = 75;
const CRLF = '\r\n';
// Below this many UTF-16 units a line cannot exceed 75 octets (a unit is at most 3 UTF-8 octets).
const SURELY_SHORT_UNITS = 25;
// Control characters other than HTAB are not allowed in TEXT; line breaks are escaped before this runs.
// eslint-disable-next-line no-control-regex
const FORBIDDEN_CONTROLS = /[\u0000-\u0008\u000a-\u001f\u007f]/g;
const TEXT_SPECIALS = /[\\;,]|\r\n|\r|\n/g;

function escapeSpecial(special: string): string {
  return special.length === 1 && special !== '\n' && special !== '\r' ? `\\${special}` : '\\n';
}

/** Escapes a TEXT value: backslash, semicolon, comma and every line break style (as \n). */
export function escapeText(value: string): string {
  return value.replace(TEXT_SPECIALS, escapeSpecial).replace(FORBIDDEN_CONTROLS, '');
}

function utf8Length(codePoint: number): number {
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  return codePoint < 0x10000 ? 3 : 4;
}

/** The line followed by CRLF, folded so no physical line exceeds 75 octets and no UTF-8 sequence splits. */
export function foldLine(line: string): string {
  if (line.length <= SURELY_SHORT_UNITS || Buffer.byteLength(line) <= MAX_LINE_OCTETS) return line + CRLF;
  let folded = '';
  let current = '';
  let octets = 0;
  for (const character of line) {
    const size = utf8Length(character.codePointAt(0) ?? 0);
    if (octets + size > MAX_LINE_OCTETS) {
      folded += current + CRLF;
      // The continuation line's leading space counts towards its 75 octets.
      current = ' ';
      octets = 1;
    }
    current += character;
    octets += size;
  }
  return folded + current + CRLF;
}
