import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Webhook-Signature';
export const TIMESTAMP_HEADER = 'X-Webhook-Timestamp';

/** `sha256=` + lowercase hex HMAC-SHA256 over `<timestamp>.<raw body>`, as the spec's Events section defines. */
export function signPayload(secret: string, timestamp: string, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')}`;
}

/** The headers of one attempt; the signature header exists only when the webhook has a secret. */
export function deliveryHeaders(rawBody: string, sentAt: Date, secret: string | null): Record<string, string> {
  const timestamp = String(Math.floor(sentAt.getTime() / 1000));
  const headers: Record<string, string> = { 'content-type': 'application/json', [TIMESTAMP_HEADER]: timestamp };
  if (secret) headers[SIGNATURE_HEADER] = signPayload(secret, timestamp, rawBody);
  return headers;
}
