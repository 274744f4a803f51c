import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../src/index.js';
import { startHarness, type Harness } from './support/webhook-harness.js';
import { startReceiver, type ReceivedRequest, type TestReceiver } from './support/test-receiver.js';

/**
 * Every attempt carries the Standard Webhooks headers beside the spec's. The receiver's check is written
 * out here from the scheme (v1, base64 HMAC-SHA256 over "<webhook-id>.<webhook-timestamp>.<body>", keyed by
 * the secret's UTF-8 bytes), and the Standard Webhooks library accepts the same requests.
 */
const SECRET = 'standard-webhooks-sécret-42';
const owner = randomUUID();
let h: Harness;
let target: TestReceiver;

beforeAll(async () => {
  // The library checks timestamps against the real clock.
  h = await startHarness({ now: () => new Date() });
  target = await startReceiver((_request, index) => (index < 2 ? { status: 500 } : { status: 204 }));
});
afterAll(async () => {
  await target.close();
  await h.close();
});

function header(request: ReceivedRequest, name: string): string {
  return String(request.headers[name]);
}

function verifiesStandardSignature(request: ReceivedRequest, secret: string): boolean {
  const signed = `${header(request, 'webhook-id')}.${header(request, 'webhook-timestamp')}.${request.rawBody}`;
  const expected = Buffer.from(createHmac('sha256', Buffer.from(secret, 'utf8')).update(signed).digest('base64'));
  return header(request, 'webhook-signature').split(' ').some((candidate) => {
    const [version, signature = ''] = candidate.split(',');
    const given = Buffer.from(signature);
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

describe('Standard Webhooks headers', () => {
  it('sign every attempt verifiably, keep webhook-id the delivery id on every retry, and leave the spec headers as they are', async () => {
    const created = await h.call(owner, 'POST', '/webhooks', { url: target.url, secret: SECRET });
    await h.publish({});
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await h.knex('deliveries').where({ webhook_id: created.body.data.id }).update({ next_retry_at: new Date() });
      await h.module.dispatcher.runCycle();
    }
    expect(target.received).toHaveLength(3);
    const [delivery] = await h.knex('deliveries').where({ webhook_id: created.body.data.id });
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 3 });

    const library = new Webhook(new TextEncoder().encode(SECRET), { format: 'raw' });
    for (const request of target.received) {
      expect(header(request, 'webhook-id')).toBe(delivery.id);
      expect(header(request, 'webhook-timestamp')).toBe(header(request, 'x-webhook-timestamp'));
      expect(header(request, 'webhook-signature')).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(verifiesStandardSignature(request, SECRET)).toBe(true);
      expect(verifiesStandardSignature(request, 'another-secret-of-length')).toBe(false);
      expect(library.verify(request.rawBody, request.headers as Record<string, string>)).toEqual(request.body);
      expect(verifyWebhookSignature(request.rawBody, { timestamp: header(request, 'x-webhook-timestamp'), signature: header(request, 'x-webhook-signature') }, SECRET)).toBe(true);
    }
    const tampered = target.received[0]!;
    expect(() => library.verify(tampered.rawBody.replace('"id"', '"id" '), tampered.headers as Record<string, string>)).toThrow();
  });

  it('sends webhook-id and webhook-timestamp without a signature when the webhook has no secret', async () => {
    const plain = await startReceiver();
    try {
      await h.call(owner, 'POST', '/webhooks', { url: plain.url });
      await h.publish({});
      await h.module.dispatcher.runCycle();
      const [request] = plain.received;
      expect(request?.headers['webhook-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(request?.headers['webhook-timestamp']).toMatch(/^\d+$/);
      expect(request?.headers['webhook-signature']).toBeUndefined();
      expect(request?.headers['x-webhook-signature']).toBeUndefined();
    } finally {
      await plain.close();
    }
  });
});
