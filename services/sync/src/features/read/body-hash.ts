/**
 * Hashes of upstream answers, so a run can tell that an answer is the one an earlier run already read.
 * StarPlan is not known to send ETag or Last-Modified, so the body itself is the evidence (docs/sync.md, "The run").
 */
import { createHash } from 'node:crypto';

const LF = 0x0a;
const SPACE = 0x20;
const TAB = 0x09;

/**
 * Lines a group calendar changes on every export although nothing in it changed: StarPlan's UIDs are new in
 * each export and DTSTAMP is the export time. The feed parser reads neither, so leaving them out of the hash
 * can never hide a difference the parser would see.
 */
const UID = Buffer.from('UID:', 'latin1');
const DTSTAMP = Buffer.from('DTSTAMP:', 'latin1');
/** Where the kept bytes of a feed are gathered, reused since hashing is synchronous; grown up to a bound. */
const MAX_SCRATCH_BYTES = 4 * 1024 * 1024;
let scratch = Buffer.alloc(64 * 1024);

/** Charsets in which those ASCII prefixes are the same bytes; another charset is hashed whole. */
const ASCII_COMPATIBLE = /^(utf-?8|iso-?8859-\d+|latin-?1|l1|us-ascii|ascii|windows-125\d)$/;

/** A JSON list: the Content-Type (it decides the decoding) and every byte. */
export function jsonBodyHash(bytes: Uint8Array, contentType: string | null): string {
  return createHash('sha256').update(`${contentType ?? ''}\n`).update(bytes).digest('hex');
}

/**
 * A group calendar: the Content-Type, `salt` (what else the parse depends on, the default time zone) and the
 * bytes without UID and DTSTAMP lines (with their folded continuations). The first line is always kept, so
 * the parser's check of it is covered. The kept bytes are copied into one buffer and hashed once: a feed has
 * two volatile lines per event, and hashing the pieces between them one by one cost several times as much.
 */
export function calendarBodyHash(bytes: Uint8Array, contentType: string | null, salt: string): string {
  const hash = createHash('sha256').update(`${contentType ?? ''}\n${salt}\n`);
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!ASCII_COMPATIBLE.test(charsetOf(contentType))) return hash.update(buffer).digest('hex');
  if (scratch.length < buffer.length && buffer.length <= MAX_SCRATCH_BYTES) scratch = Buffer.alloc(buffer.length);
  const kept = scratch.length >= buffer.length ? scratch : Buffer.allocUnsafe(buffer.length);
  let keptLength = 0;
  let keptFrom = 0;
  for (let lineEnd = buffer.indexOf(LF); lineEnd >= 0 && lineEnd + 1 < buffer.length; ) {
    const lineStart = lineEnd + 1;
    const first = buffer[lineStart];
    if ((first !== UID[0] && first !== DTSTAMP[0]) || !(startsWithAt(buffer, UID, lineStart) || startsWithAt(buffer, DTSTAMP, lineStart))) {
      lineEnd = buffer.indexOf(LF, lineStart);
      continue;
    }
    keptLength += buffer.copy(kept, keptLength, keptFrom, lineStart);
    // The volatile line and its folded continuations (lines starting with a space or tab).
    let skipTo = nextLine(buffer, lineStart);
    while (skipTo < buffer.length && (buffer[skipTo] === SPACE || buffer[skipTo] === TAB)) skipTo = nextLine(buffer, skipTo);
    keptFrom = skipTo;
    lineEnd = skipTo - 1;
  }
  keptLength += buffer.copy(kept, keptLength, keptFrom);
  return hash.update(kept.subarray(0, keptLength)).digest('hex');
}

function startsWithAt(buffer: Buffer, prefix: Buffer, at: number): boolean {
  if (at + prefix.length > buffer.length) return false;
  for (let index = 0; index < prefix.length; index += 1) if (buffer[at + index] !== prefix[index]) return false;
  return true;
}

function charsetOf(contentType: string | null): string {
  return /charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '')?.[1]?.toLowerCase() ?? 'utf-8';
}

/** The offset after the next line feed at or after `from`, or the end. */
function nextLine(buffer: Buffer, from: number): number {
  const end = buffer.indexOf(LF, from);
  return end < 0 ? buffer.length : end + 1;
}
