import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a delivery's X-Webhook-Timestamp may be from the receiver's clock (spec: 300 seconds). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * What a receiver runs on each request, given the X-Webhook-Timestamp and X-Webhook-Signature headers: true
 * only when the signature matches the raw body (the exact
 * bytes received, not re-serialised JSON) and the timestamp is within the tolerance window, which
 * stops a captured request from being replayed later. The comparison is constant-time.
 */
export function verifyWebhookSignature(
  rawBody: string | Buffer,
  { timestamp, signature }: { timestamp: string | undefined; signature: string | undefined },
  secret: string,
  now: Date = new Date(),
): boolean {
  if (!timestamp || !signature || !/^\d+$/.test(timestamp)) return false;
  const skew = Math.abs(Math.floor(now.getTime() / 1000) - Number(timestamp));
  if (skew > SIGNATURE_TOLERANCE_SECONDS) return false;
  const expected = Buffer.from(
    `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex')}`,
  );
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
