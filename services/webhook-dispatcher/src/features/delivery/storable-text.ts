/** Half of a surrogate pair with no other half: what cutting an answer at 1,000 UTF-16 units may leave. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A subscriber's answer or an error text as PostgreSQL takes it: it refuses a NUL character and half a
 * surrogate pair in text, and one such row would fail the whole batch, every time it is sent again (its
 * attempt never recorded, its delivery repeated for ever). NUL is dropped, half a pair becomes U+FFFD.
 */
export function storableText(text: string): string {
  return text.replaceAll('\u0000', '').replace(LONE_SURROGATE, '\uFFFD');
}
