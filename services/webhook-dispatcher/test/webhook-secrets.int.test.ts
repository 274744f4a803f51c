import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogger } from '@timetable/testing';
import { createWebhookService, verifyWebhookSignature } from '../src/index.js';
import { startHarness, type Harness } from './support/webhook-harness.js';
import { startReceiver, type TestReceiver } from './support/test-receiver.js';

/** Webhook secrets are stored encrypted with WEBHOOK_SECRETS_KEY (AES-256-GCM) and still sign after a restart. */
const SECRET = 'a-secret-only-the-subscriber-knows';
const owner = randomUUID();
let h: Harness;
let target: TestReceiver;

beforeAll(async () => {
  h = await startHarness();
  target = await startReceiver();
});
afterAll(async () => {
  await target.close();
  await h.close();
});

async function lastSignatureVerifies(secret: string): Promise<boolean> {
  const request = target.received.at(-1)!;
  return verifyWebhookSignature(
    request.rawBody,
    { timestamp: String(request.headers['x-webhook-timestamp']), signature: String(request.headers['x-webhook-signature']) },
    secret,
    h.clock.now(),
  );
}

describe('secrets at rest', () => {
  it('stores only ciphertext, and signs with the secret after a restart on the same key', async () => {
    const created = await h.call(owner, 'POST', '/webhooks', { url: target.url, secret: SECRET });
    const row = await h.knex('webhooks').where({ id: created.body.data.id }).first();
    expect(row.secret).toMatch(/^enc:v1:[A-Za-z0-9+/]+=*$/);
    expect(row.secret).not.toContain(SECRET);
    expect(Buffer.from(row.secret.slice('enc:v1:'.length), 'base64').toString('latin1')).not.toContain(SECRET);

    const restarted = await h.replica();
    await h.call(owner, 'POST', `/webhooks/${created.body.data.id}/test`);
    await restarted.dispatcher.runCycle();
    expect(target.received).toHaveLength(1);
    expect(await lastSignatureVerifies(SECRET)).toBe(true);
  });

  it('re-encrypts on update and drops the secret with the webhook', async () => {
    const created = await h.call(owner, 'POST', '/webhooks', { url: target.url, secret: SECRET });
    const before = await h.knex('webhooks').where({ id: created.body.data.id }).first();
    await h.call(owner, 'PATCH', `/webhooks/${created.body.data.id}`, { secret: 'the-rotated-secret-value' });
    const after = await h.knex('webhooks').where({ id: created.body.data.id }).first();
    expect(after.secret).toMatch(/^enc:v1:/);
    expect(after.secret).not.toBe(before.secret);
    await h.call(owner, 'DELETE', `/webhooks/${created.body.data.id}`);
    expect((await h.knex('webhooks').where({ id: created.body.data.id }).first()).secret).toBeNull();
  });

  it('encrypts rows stored in plaintext before encryption, at the next start, and they keep signing', async () => {
    const created = await h.call(owner, 'POST', '/webhooks', { url: target.url });
    await h.knex('webhooks').where({ id: created.body.data.id }).update({ secret: 'an-old-plaintext-secret' });
    const restarted = await h.replica();
    const row = await h.knex('webhooks').where({ id: created.body.data.id }).first();
    expect(row.secret).toMatch(/^enc:v1:/);
    await h.call(owner, 'POST', `/webhooks/${created.body.data.id}/test`);
    await restarted.dispatcher.runCycle();
    expect(await lastSignatureVerifies('an-old-plaintext-secret')).toBe(true);
  });

  it('refuses to start with a key that does not decrypt the stored secrets, naming WEBHOOK_SECRETS_KEY', async () => {
    await h.call(owner, 'POST', '/webhooks', { url: target.url, secret: SECRET });
    const { knex, bus, identity } = h;
    const start = createWebhookService({
      knex, bus, identity, logger: captureLogger('fatal').logger, secretsKey: randomBytes(32),
      intervalSeconds: 3600, retryDelaysSeconds: [60], timeoutMs: 1000, breaker: { minRequests: 10, failurePercent: 70, openSeconds: 30 },
      allowCidrs: [], denyCidrs: [], hostConcurrency: 4, retentionDays: 30, maxPendingHours: 72, disableAfterDays: 5, maxWebhooksPerDeveloper: 25,
    });
    await expect(start).rejects.toThrow(/WEBHOOK_SECRETS_KEY does not decrypt the stored webhook secrets/);
  });
});
