/** StarPlan's JSON transport: `[[...]]` payloads, 200-with-error bodies, ISO-8859-1 bytes. */

export const JSON_CONTENT_TYPE = 'application/json; charset=ISO-8859-1';

/** A successful answer: the payload is the first element of an outer array. */
export function wrapItems(items: unknown[]): unknown[][] {
  return [items];
}

/** How StarPlan reports a bad request, with HTTP 200 (see recorded/getpartinfo_error.json). */
export function errorPayload(text: string): [string, [{ error: string }]] {
  return ['', [{ error: text }]];
}

/** Characters outside ISO-8859-1 cannot be sent; like the real server we substitute `?`. */
export function encodeLatin1Json(value: unknown): Buffer {
  // eslint-disable-next-line no-control-regex
  const text = JSON.stringify(value).replace(/[^\u0000-\u00ff]/g, '?');
  return Buffer.from(text, 'latin1');
}
