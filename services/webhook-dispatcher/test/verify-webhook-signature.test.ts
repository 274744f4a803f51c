import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../src/index.js';
import { deliveryHeaders, signPayload, signStandardWebhook } from '../src/features/signing/sign-payload.js';

const secret = 'receiver-shared-secret';
const rawBody = '{"id":"c1","timestamp":"2025-03-03T10:00:00.000Z","event":"course.updated","data":{}}';
const sentAt = new Date('2025-03-03T10:00:00.000Z');
const timestamp = String(sentAt.getTime() / 1000);
const signature = signPayload(secret, timestamp, rawBody);
const STANDARD_VECTOR = 'v1,TiYgc5deU9U3AVI2S94xROMWK1DVPxSfHjOrv7s06HQ=';

describe('signing', () => {
  it('is sha256= and the hex HMAC over "<timestamp>.<raw body>"', () => {
    // Fixed vector, so a change to the scheme cannot pass unnoticed.
    expect(signPayload('secret', '1700000000', '{}')).toBe('sha256=b8569b78799ff9e3cbff0fc2d63a33a2b57f3282abd07c37ae5e8e7d79a5f163');
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it('adds the signature headers only with a secret, and the Standard Webhooks id and timestamp always', () => {
    const id = '5b3c8a8e-2f7d-4d8a-9a51-0c1f1d2e3f40';
    expect(deliveryHeaders(rawBody, sentAt, secret, id)).toEqual({
      'content-type': 'application/json', 'X-Webhook-Timestamp': timestamp, 'X-Webhook-Signature': signature,
      'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signStandardWebhook(secret, id, timestamp, rawBody),
    });
    expect(deliveryHeaders(rawBody, sentAt, null, id)).toEqual({
      'content-type': 'application/json', 'X-Webhook-Timestamp': timestamp, 'webhook-id': id, 'webhook-timestamp': timestamp,
    });
  });

  it('signs Standard Webhooks as v1, and the base64 HMAC over "<id>.<timestamp>.<body>" keyed by the UTF-8 secret', () => {
    // Fixed vector, computed independently: printf 'msg_1.1700000000.{}' | openssl dgst -sha256 -hmac 'sécret-of-16-chars' -binary | base64
    expect(signStandardWebhook('sécret-of-16-chars', 'msg_1', '1700000000', '{}')).toBe(STANDARD_VECTOR);
  });
});

describe('verifyWebhookSignature', () => {
  it('accepts the raw body with the right secret, as a string or a Buffer', () => {
    expect(verifyWebhookSignature(rawBody, { timestamp, signature }, secret, sentAt)).toBe(true);
    expect(verifyWebhookSignature(Buffer.from(rawBody), { timestamp, signature }, secret, sentAt)).toBe(true);
  });

  it('rejects a re-serialised or tampered body, another secret and a malformed header', () => {
    expect(verifyWebhookSignature(JSON.stringify(JSON.parse(rawBody), null, 2), { timestamp, signature }, secret, sentAt)).toBe(false);
    expect(verifyWebhookSignature(rawBody.replace('c1', 'c2'), { timestamp, signature }, secret, sentAt)).toBe(false);
    expect(verifyWebhookSignature(rawBody, { timestamp, signature }, 'another-secret-xyz', sentAt)).toBe(false);
    expect(verifyWebhookSignature(rawBody, { timestamp, signature: signature.slice(7) }, secret, sentAt)).toBe(false);
    expect(verifyWebhookSignature(rawBody, { timestamp: undefined, signature }, secret, sentAt)).toBe(false);
    expect(verifyWebhookSignature(rawBody, { timestamp, signature: undefined }, secret, sentAt)).toBe(false);
  });

  it('accepts timestamps up to 300 seconds away and rejects older or newer ones', () => {
    const at = (seconds: number) => new Date(sentAt.getTime() + seconds * 1000);
    expect(verifyWebhookSignature(rawBody, { timestamp, signature }, secret, at(300))).toBe(true);
    expect(verifyWebhookSignature(rawBody, { timestamp, signature }, secret, at(-300))).toBe(true);
    expect(verifyWebhookSignature(rawBody, { timestamp, signature }, secret, at(301))).toBe(false);
    expect(verifyWebhookSignature(rawBody, { timestamp, signature }, secret, at(-301))).toBe(false);
  });

  it('rejects a timestamp that was changed after signing', () => {
    const moved = String(Number(timestamp) + 1);
    expect(verifyWebhookSignature(rawBody, { timestamp: moved, signature }, secret, sentAt)).toBe(false);
  });
});

describe('the receiver example in docs/receiving-webhooks.md', () => {
  it('behaves like the exported function', async () => {
    const guide = await readFile(path.join(import.meta.dirname, '../../../docs/receiving-webhooks.md'), 'utf8');
    const example = [...guide.matchAll(/```ts\n([\s\S]*?)```/g)]
      .map((match) => match[1])
      .find((block) => block?.includes('export function verifyWebhookSignature'));
    expect(example).toContain('export function verifyWebhookSignature');
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'receivers-')), 'example.ts');
    await writeFile(file, example!);
    const documented = (await import(file)) as { verifyWebhookSignature: typeof verifyWebhookSignature };
    for (const [body, moved, key] of [[rawBody, 0, secret], [rawBody, 301, secret], [`${rawBody} `, 0, secret], [rawBody, 0, 'wrong-secret-0000']] as const) {
      const at = new Date(sentAt.getTime() + moved * 1000);
      expect(documented.verifyWebhookSignature(body, { timestamp, signature }, key, at)).toBe(verifyWebhookSignature(body, { timestamp, signature }, key, at));
    }
    expect(documented.verifyWebhookSignature(rawBody, { timestamp, signature }, secret, sentAt)).toBe(true);
  });
});

describe('the Standard Webhooks receiver example in docs/receiving-webhooks.md', () => {
  it('accepts what the dispatcher signs, like the standardwebhooks library, and rejects what it should', async () => {
    const guide = await readFile(path.join(import.meta.dirname, '../../../docs/receiving-webhooks.md'), 'utf8');
    const example = [...guide.matchAll(/```ts\n([\s\S]*?)```/g)]
      .map((match) => match[1])
      .find((block) => block?.includes('export function verifyStandardWebhook'));
    expect(example).toContain('export function verifyStandardWebhook');
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'receivers-')), 'standard.ts');
    await writeFile(file, example!);
    const documented = (await import(file)) as {
      verifyStandardWebhook(body: string, headers: Record<string, string | undefined>, secret: string, now?: Date): boolean;
    };
    const now = new Date();
    const headers = deliveryHeaders(rawBody, now, secret, 'a1b2c3d4-0000-4000-8000-000000000001');
    const library = new Webhook(new TextEncoder().encode(secret), { format: 'raw' });
    expect(library.verify(rawBody, headers)).toEqual(JSON.parse(rawBody));
    expect(documented.verifyStandardWebhook(rawBody, headers, secret, now)).toBe(true);
    expect(documented.verifyStandardWebhook(`${rawBody} `, headers, secret, now)).toBe(false);
    expect(documented.verifyStandardWebhook(rawBody, headers, 'wrong-secret-0000', now)).toBe(false);
    expect(documented.verifyStandardWebhook(rawBody, { ...headers, 'webhook-id': 'another-id' }, secret, now)).toBe(false);
    expect(documented.verifyStandardWebhook(rawBody, headers, secret, new Date(now.getTime() + 301_000))).toBe(false);
    const rotated = { ...headers, 'webhook-signature': `v1,c29tZXRoaW5nIGVsc2U= ${headers['webhook-signature']}` };
    expect(documented.verifyStandardWebhook(rawBody, rotated, secret, now)).toBe(true);
  });
});
