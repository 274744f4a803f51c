/**
 * StarPlan's transport quirks: bytes in the charset of Content-Type, `[[...]]` payloads, 200-with-error bodies.
 * Whatever the upstream sends, the text that leaves here is clean: control characters are removed and invalid
 * sequences replaced, because one NUL or lone surrogate in a name would otherwise be refused by PostgreSQL's
 * jsonb and stop every sync run until the upstream changed. Only a body that cannot be read at all (not JSON,
 * not a calendar) fails, and then just its own program/semester pair.
 */
import { UpstreamError } from './upstream-error.js';

const LATIN1_LABELS = new Set(['iso-8859-1', 'iso8859-1', 'latin1', 'l1']);

/**
 * C0 controls other than tab, line feed and carriage return (which JSON and iCal use as whitespace), and DEL.
 * C1 controls stay: they are what ISO-8859-1 makes of Windows-1252 punctuation, and harm nothing downstream.
 */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Removes control characters and replaces lone surrogates with U+FFFD. */
export function cleanText(text: string): string {
  return text.replace(CONTROL_CHARACTERS, '').replace(LONE_SURROGATE, '\ufffd');
}

/**
 * Decodes by the charset named in Content-Type (StarPlan's JSON is ISO-8859-1, its iCal UTF-8), replacing
 * broken sequences with U+FFFD, and cleans the text.
 */
export function decodeText(bytes: Uint8Array, contentType: string | null): string {
  const charset = /charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '')?.[1]?.toLowerCase() ?? 'utf-8';
  // TextDecoder's 'latin1' is really windows-1252; Buffer's latin1 is the ISO-8859-1 StarPlan sends.
  if (LATIN1_LABELS.has(charset)) return cleanText(Buffer.from(bytes).toString('latin1'));
  let text: string;
  try {
    text = new TextDecoder(charset).decode(bytes);
  } catch {
    throw new UpstreamError(`upstream body in an unknown charset: ${charset}`, false);
  }
  return cleanText(text);
}

/** JSON escapes (`\u0000`, `\ud800`) produce what cleanText removed from the raw text; they are cleaned after parsing. */
function cleanStrings(_key: string, value: unknown): unknown {
  return typeof value === 'string' ? cleanText(value) : value;
}

/** The payload of a JSON answer: the first element of the outer array; error bodies become UpstreamErrors. */
export function unwrapStarplanJson(text: string): unknown[] {
  let parsed: unknown;
  try {
    // The reviver costs a walk over every value; only a body with escapes can need it.
    parsed = text.includes('\\u') ? JSON.parse(text, cleanStrings) : JSON.parse(text);
  } catch {
    throw new UpstreamError(`invalid or truncated JSON from upstream (${text.length} characters)`);
  }
  if (!Array.isArray(parsed)) throw new UpstreamError('upstream JSON is not an array', false);
  const errorText = errorOf(parsed);
  if (errorText !== undefined) throw new UpstreamError(`upstream error: ${errorText}`, false);
  const [payload] = parsed as unknown[];
  if (!Array.isArray(payload)) throw new UpstreamError('upstream JSON is not wrapped as [[...]]', false);
  return payload;
}

/** `["",[{"error":"no planning units"}]]` */
function errorOf(parsed: unknown[]): string | undefined {
  if (parsed.length !== 2 || parsed[0] !== '' || !Array.isArray(parsed[1])) return undefined;
  const [first] = parsed[1] as unknown[];
  if (typeof first !== 'object' || first === null || !('error' in first)) return undefined;
  return String((first as { error: unknown }).error);
}
