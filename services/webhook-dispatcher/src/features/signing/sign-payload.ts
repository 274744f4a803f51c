import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Webhook-Signature';
export const TIMESTAMP_HEADER = 'X-Webhook-Timestamp';
/** The Standard Webhooks headers, sent beside the spec's so receivers can use that ecosystem's libraries. */
export const STANDARD_ID_HEADER = 'webhook-id';
export const STANDARD_TIMESTAMP_HEADER = 'webhook-timestamp';
export const STANDARD_SIGNATURE_HEADER = 'webhook-signature';

/** `sha256=` + lowercase hex HMAC-SHA256 over `<timestamp>.<raw body>`, as the spec's Events section defines. */
export function signPayload(secret: string, timestamp: string, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')}`;
}

/**
 * Standard Webhooks: `v1,` + base64 HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>`, keyed
 * by the secret's UTF-8 bytes (our secrets are chosen by subscribers, not the `whsec_` base64 form).
 */
export function signStandardWebhook(secret: string, webhookId: string, timestamp: string, rawBody: string): string {
  return `v1,${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${webhookId}.${timestamp}.${rawBody}`).digest('base64')}`;
}

/**
 * The headers of one attempt. `webhook-id` is the delivery id, the same on every retry of that delivery;
 * the signature headers exist only when the webhook has a secret.
 */
export function deliveryHeaders(rawBody: string, sentAt: Date, secret: string | null, deliveryId: string): Record<string, string> {
  const timestamp = String(Math.floor(sentAt.getTime() / 1000));
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    [TIMESTAMP_HEADER]: timestamp,
    [STANDARD_ID_HEADER]: deliveryId,
    [STANDARD_TIMESTAMP_HEADER]: timestamp,
  };
  if (secret) {
    headers[SIGNATURE_HEADER] = signPayload(secret, timestamp, rawBody);
    headers[STANDARD_SIGNATURE_HEADER] = signStandardWebhook(secret, deliveryId, timestamp, rawBody);
  }
  return headers;
}
