/** StarPlan's transport quirks: bytes in the charset of Content-Type, `[[...]]` payloads, 200-with-error bodies. */
import { UpstreamError } from './upstream-error.js';

const LATIN1_LABELS = new Set(['iso-8859-1', 'iso8859-1', 'latin1', 'l1']);

/** Decodes by the charset named in Content-Type; StarPlan's JSON is ISO-8859-1, its iCal UTF-8. */
export function decodeText(bytes: Uint8Array, contentType: string | null): string {
  const charset = /charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '')?.[1]?.toLowerCase() ?? 'utf-8';
  // TextDecoder's 'latin1' is really windows-1252; Buffer's latin1 is the ISO-8859-1 StarPlan sends.
  if (LATIN1_LABELS.has(charset)) return Buffer.from(bytes).toString('latin1');
  try {
    // fatal: a UTF-8 body with broken sequences is a damaged answer, not text with replacement characters.
    return new TextDecoder(charset, { fatal: true }).decode(bytes);
  } catch (error) {
    throw new UpstreamError(`cannot decode upstream body as ${charset}: ${(error as Error).message}`, false);
  }
}

/** The payload of a JSON answer: the first element of the outer array; error bodies become UpstreamErrors. */
export function unwrapStarplanJson(text: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
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
