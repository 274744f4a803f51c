/**
 * Hashes of upstream answers, so a run can tell that an answer is the one an earlier run already read.
 * StarPlan is not known to send ETag or Last-Modified, so the body itself is the evidence (docs/architecture.md, "Sync").
 */
import { createHash } from 'node:crypto';

const LF = 0x0a;
const SPACE = 0x20;
const TAB = 0x09;

/**
 * Lines a group calendar changes on every export although nothing in it changed: StarPlan's UIDs are new in
 * each export and DTSTAMP is the export time. The feed parser reads neither, so leaving them out of the hash
 * can never hide a difference the parser would see. Each pattern starts with the line feed before the line.
 */
const VOLATILE_LINES = ['\nUID:', '\nDTSTAMP:'].map((pattern) => Buffer.from(pattern, 'latin1'));

/** Charsets in which those ASCII prefixes are the same bytes; another charset is hashed whole. */
const ASCII_COMPATIBLE = /^(utf-?8|iso-?8859-\d+|latin-?1|l1|us-ascii|ascii|windows-125\d)$/;

/** A JSON list: the Content-Type (it decides the decoding) and every byte. */
export function jsonBodyHash(bytes: Uint8Array, contentType: string | null): string {
  return createHash('sha256').update(`${contentType ?? ''}\n`).update(bytes).digest('hex');
}

/**
 * A group calendar: the Content-Type, `salt` (what else the parse depends on, the default time zone) and the
 * bytes without UID and DTSTAMP lines (with their folded continuations). The first line is always kept, so
 * the parser's check of it is covered.
 */
export function calendarBodyHash(bytes: Uint8Array, contentType: string | null, salt: string): string {
  const hash = createHash('sha256').update(`${contentType ?? ''}\n${salt}\n`);
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!ASCII_COMPATIBLE.test(charsetOf(contentType))) return hash.update(buffer).digest('hex');
  // Where each pattern occurs next at or after the search position (-1: nowhere), searched natively.
  const next = VOLATILE_LINES.map((pattern) => buffer.indexOf(pattern, 0));
  let hashedUpTo = 0;
  for (;;) {
    const found = Math.min(...next.filter((at) => at >= 0));
    if (!Number.isFinite(found)) break;
    const lineStart = found + 1;
    hash.update(buffer.subarray(hashedUpTo, lineStart));
    let skipTo = nextLine(buffer, lineStart);
    while (skipTo < buffer.length && (buffer[skipTo] === SPACE || buffer[skipTo] === TAB)) skipTo = nextLine(buffer, skipTo);
    hashedUpTo = skipTo;
    // From the line feed that ends the skipped line, so a volatile line right after it is found too.
    VOLATILE_LINES.forEach((pattern, index) => {
      if ((next[index] as number) >= 0 && (next[index] as number) < skipTo - 1) next[index] = buffer.indexOf(pattern, skipTo - 1);
    });
  }
  return hash.update(buffer.subarray(hashedUpTo)).digest('hex');
}

function charsetOf(contentType: string | null): string {
  return /charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '')?.[1]?.toLowerCase() ?? 'utf-8';
}

/** The offset after the next line feed at or after `from`, or the end. */
function nextLine(buffer: Buffer, from: number): number {
  const end = buffer.indexOf(LF, from);
  return end < 0 ? buffer.length : end + 1;
}
