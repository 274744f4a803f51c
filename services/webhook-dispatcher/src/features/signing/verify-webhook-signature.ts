import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a delivery's X-Webhook-Timestamp may be from the receiver's clock (spec: 300 seconds). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * What a receiver runs on each request: true only when the signature matches the raw body (the exact
 * bytes received, not re-serialised JSON) and the timestamp is within the tolerance window, which
 * stops a captured request from being replayed later. The comparison is constant-time.
 */
export function verifyWebhookSignature(
  rawBody: string | Buffer,
  timestampHeader: string | undefined,
  signatureHeader: string | undefined,
  secret: string,
  now: Date = new Date(),
): boolean {
  if (!timestampHeader || !signatureHeader || !/^\d+$/.test(timestampHeader)) return false;
  const skew = Math.abs(Math.floor(now.getTime() / 1000) - Number(timestampHeader));
  if (skew > SIGNATURE_TOLERANCE_SECONDS) return false;
  const expected = Buffer.from(
    `sha256=${createHmac('sha256', secret).update(`${timestampHeader}.`).update(rawBody).digest('hex')}`,
  );
  const given = Buffer.from(signatureHeader);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
