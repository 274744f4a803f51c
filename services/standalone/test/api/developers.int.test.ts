import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, expectError, uniqueEmail, type Developer, type Json } from './support/api-client.js';
import { startTarget, type Target } from './support/target.js';

const KEY_FORMAT = /^spk_[A-Za-z0-9_-]{32}$/;
const INVALID_KEY = 'Invalid or revoked API key';
const WEBHOOK_URL = 'http://receiver.internal:9/hooks';

let target: Target;
let client: ApiClient;

beforeAll(async () => {
  target = await startTarget();
  client = new ApiClient(target.baseUrl);
});

afterAll(() => target?.stop());

/** An address of exactly `length` characters: a unique local part, then labels of at most 60 characters. */
function emailOfLength(length: number): string {
  let local = `len-${randomUUID().slice(0, 8)}`;
  // The domain is `(60 a's + '.')*k + rest + '.edu'`; rest must not be empty, so pad the local part instead.
  while ((length - local.length - 1 - '.edu'.length) % 61 === 0) local += 'x';
  const body = length - local.length - 1 - '.edu'.length;
  const domain = `${'a'.repeat(60)}.`.repeat(Math.floor(body / 61)) + 'a'.repeat(body % 61);
  return `${local}@${domain}.edu`;
}

function createWebhook(apiKey: string) {
  return client.post('/webhooks', { apiKey, json: { url: WEBHOOK_URL } });
}

/** Every route that needs X-API-Key, as [method, path relative to /v1/timetable]. */
function keyRoutes(webhookId: string): [string, string][] {
  return [
    ['GET', '/developers/me'],
    ['POST', '/developers/regenerate-key'],
    ['POST', '/developers/deactivate'],
    ['GET', '/developers/usage'],
    ['GET', '/webhooks'],
    ['POST', '/webhooks'],
    ['GET', `/webhooks/${webhookId}`],
    ['PATCH', `/webhooks/${webhookId}`],
    ['DELETE', `/webhooks/${webhookId}`],
    ['GET', `/webhooks/${webhookId}/deliveries`],
    ['POST', `/webhooks/${webhookId}/test`],
  ];
}

describe('authentication: key-required routes reject a missing or invalid X-API-Key with 401', () => {
  it('answers every key-required route without the header with 401 `Missing X-API-Key header`', async () => {
    for (const [method, path] of keyRoutes(randomUUID())) {
      expectError(await client.api(method, path), 401, 'UNAUTHORIZED', 'Missing X-API-Key header');
    }
  });

  it('rejects a key without the spk_ prefix, and an unknown spk_ key, with `Invalid or revoked API key`', async () => {
    const { apiKey } = await client.registerDeveloper();
    const withoutPrefix = apiKey.replace(/^spk_/, 'sk_');
    expectError(await client.get('/developers/me', { apiKey: withoutPrefix }), 401, 'UNAUTHORIZED', INVALID_KEY);
    expectError(await client.get('/developers/me', { apiKey: `spk_${'A'.repeat(32)}` }), 401, 'UNAUTHORIZED', INVALID_KEY);
    expectError(await client.get('/webhooks', { apiKey: 'spk_' }), 401, 'UNAUTHORIZED', INVALID_KEY);
  });

  it('accepts the header name in any case', async () => {
    const { apiKey } = await client.registerDeveloper();
    for (const name of ['x-api-key', 'X-API-KEY', 'X-Api-Key']) {
      const response = await client.get('/developers/me', { headers: { [name]: apiKey } });
      expect(response.status, name).toBe(200);
    }
  });

  it('serves anonymous routes without any key', async () => {
    for (const path of ['/programs', '/statistics', '/changes?limit=1', '/sync/status', '/search?q=ma', '/week/current']) {
      expect((await client.get(path)).status, path).toBe(200);
    }
    expect((await client.post('/developers/register', { json: { email: uniqueEmail() } })).status).toBe(201);
  });
});

describe('POST /developers/register creates an account and reveals its key once', () => {
  it('answers 201 with id, email, name, apiKey, apiKeyHint, createdAt and a message', async () => {
    const email = uniqueEmail();
    const response = await client.post('/developers/register', { json: { email, name: 'Ada' } });
    expect(response.status, response.text).toBe(201);
    expect(response.body).toEqual({
      data: { id: expect.any(String), email, name: 'Ada', apiKey: expect.any(String), apiKeyHint: expect.any(String), createdAt: expect.any(String) },
      message: expect.any(String),
    });
    const { apiKey, apiKeyHint, createdAt } = response.body.data;
    expect(apiKey).toMatch(KEY_FORMAT);
    expect(apiKey).toHaveLength(36);
    expect(apiKeyHint).toBe(apiKey.slice(-4));
    expect(createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('answers 409 `Email already registered` for a taken email, but treats a differently cased email as new', async () => {
    const email = uniqueEmail('Case');
    expect((await client.post('/developers/register', { json: { email } })).status).toBe(201);
    expectError(await client.post('/developers/register', { json: { email } }), 409, undefined, 'Email already registered');
    expect((await client.post('/developers/register', { json: { email: email.toLowerCase() } })).status).toBe(201);
  });

  it('accepts an email of 254 and a name of 100 characters, and rejects 255 and 101 with 400', async () => {
    expect(emailOfLength(254)).toHaveLength(254);
    const accepted = await client.post('/developers/register', { json: { email: emailOfLength(254), name: 'n'.repeat(100) } });
    expect(accepted.status, accepted.text).toBe(201);
    expectError(await client.post('/developers/register', { json: { email: emailOfLength(255) } }), 400);
    expectError(await client.post('/developers/register', { json: { email: uniqueEmail(), name: 'n'.repeat(101) } }), 400);
  });

  it('rejects a missing or invalid email with 400', async () => {
    expectError(await client.post('/developers/register', { json: {} }), 400);
    expectError(await client.post('/developers/register', { json: { email: 'not-an-email' } }), 400);
    expectError(await client.post('/developers/register', { json: { email: 'a@' } }), 400);
  });
});

describe('GET /developers/me returns the account with its webhook count and never the key', () => {
  it('counts webhooks created through the API and shows only the hint', async () => {
    const developer = await client.registerDeveloper('Grace');
    const before = await client.get('/developers/me', { apiKey: developer.apiKey });
    expect(before.status).toBe(200);
    expect(before.body.data).toEqual({
      id: developer.id,
      email: developer.email,
      name: 'Grace',
      apiKeyHint: developer.apiKey.slice(-4),
      isActive: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      _count: { webhooks: 0 },
    });
    expect((await createWebhook(developer.apiKey)).status).toBe(201);
    expect((await createWebhook(developer.apiKey)).status).toBe(201);
    const after = await client.get('/developers/me', { apiKey: developer.apiKey });
    expect(after.body.data._count).toEqual({ webhooks: 2 });
    expect(after.text).not.toContain(developer.apiKey);
    expect(after.body.data).not.toHaveProperty('apiKey');
  });
});

describe('POST /developers/regenerate-key issues a new key and invalidates the old one at once', () => {
  it('makes the new key work and answers the old one with 401', async () => {
    const developer = await client.registerDeveloper();
    const webhook = await createWebhook(developer.apiKey);
    const response = await client.post('/developers/regenerate-key', { apiKey: developer.apiKey });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ data: { apiKey: expect.stringMatching(KEY_FORMAT), apiKeyHint: expect.any(String) }, message: expect.any(String) });
    const { apiKey, apiKeyHint } = response.body.data;
    expect(apiKey).not.toBe(developer.apiKey);
    expect(apiKeyHint).toBe(apiKey.slice(-4));
    expectError(await client.get('/developers/me', { apiKey: developer.apiKey }), 401, 'UNAUTHORIZED', INVALID_KEY);
    const me = await client.get('/developers/me', { apiKey });
    expect(me.status).toBe(200);
    expect(me.body.data.apiKeyHint).toBe(apiKeyHint);
    // Webhooks are unaffected by the rotation.
    expect((await client.get(`/webhooks/${webhook.body.data.id}`, { apiKey })).status).toBe(200);
  });
});

describe('POST /developers/deactivate disables the account and its key, leaving webhooks in place', () => {
  it('answers 200 {message}, rejects the key afterwards, and keeps the webhook owned by the account', async () => {
    const developer = await client.registerDeveloper();
    const webhook = await createWebhook(developer.apiKey);
    expect(webhook.status, webhook.text).toBe(201);
    const response = await client.post('/developers/deactivate', { apiKey: developer.apiKey });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ message: expect.any(String) });
    expectError(await client.get('/developers/me', { apiKey: developer.apiKey }), 401, 'UNAUTHORIZED', INVALID_KEY);
    expectError(await client.post('/developers/deactivate', { apiKey: developer.apiKey }), 401, 'UNAUTHORIZED', INVALID_KEY);
    // The webhook still exists and still belongs to the deactivated account: another developer gets 403, not 404.
    const other = await client.registerDeveloper();
    expectError(await client.get(`/webhooks/${webhook.body.data.id}`, { apiKey: other.apiKey }), 403, undefined, 'You do not own this webhook');
    expect((await client.get('/webhooks', { apiKey: other.apiKey })).body.data).toEqual([]);
  });
});

describe('GET /developers/usage reports the trailing 30 days by endpoint pattern', () => {
  /** Usage is recorded asynchronously after each response: poll until the expected requests show. */
  async function usageOnceCounted(developer: Developer, done: (usage: Json) => boolean): Promise<Json> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const response = await client.get('/developers/usage', { apiKey: developer.apiKey });
      expect(response.status, response.text).toBe(200);
      if (done(response.body.data)) return response.body.data;
      if (Date.now() > deadline) throw new Error(`usage never complete: ${response.text}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  const countOf = (usage: Json, endpoint: string): number =>
    usage.byEndpoint.find((entry: { endpoint: string }) => entry.endpoint === endpoint)?._count ?? 0;

  it('counts developer and webhook requests per route pattern, not catalog reads, sorted by count', async () => {
    const developer = await client.registerDeveloper();
    for (let i = 0; i < 3; i++) await client.get('/developers/me', { apiKey: developer.apiKey });
    const webhook = await createWebhook(developer.apiKey);
    for (let i = 0; i < 2; i++) await client.get(`/webhooks/${webhook.body.data.id}`, { apiKey: developer.apiKey });
    await client.get('/programs', { apiKey: developer.apiKey });
    await client.get('/statistics', { apiKey: developer.apiKey });

    const usage = await usageOnceCounted(developer, (data) => countOf(data, 'GET /v1/timetable/developers/me') === 3
      && countOf(data, 'GET /v1/timetable/webhooks/:id') === 2 && countOf(data, 'POST /v1/timetable/webhooks') === 1);
    expect(usage.byEndpoint.some((entry: { endpoint: string }) => /programs|statistics/.test(entry.endpoint))).toBe(false);
    const counts = usage.byEndpoint.map((entry: { _count: number }) => entry._count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    expect(usage.total).toBe(counts.reduce((sum: number, count: number) => sum + count, 0));
    const from = Date.parse(usage.period.from);
    const to = Date.parse(usage.period.to);
    expect(to - from).toBeGreaterThanOrEqual(30 * 86_400_000 - 1000);
    expect(to - from).toBeLessThanOrEqual(30 * 86_400_000 + 1000);
    expect(Math.abs(to - Date.now())).toBeLessThan(60_000);
  });

  it('lists at most 10 endpoints, the most used first, while total counts them all', async () => {
    const developer = await client.registerDeveloper();
    const apiKey = developer.apiKey;
    const webhookId: string = (await createWebhook(apiKey)).body.data.id;
    for (let i = 0; i < 6; i++) await client.get('/developers/me', { apiKey });
    await client.get('/webhooks', { apiKey });
    await client.get(`/webhooks/${webhookId}`, { apiKey });
    await client.api('PATCH', `/webhooks/${webhookId}`, { apiKey, json: { isActive: false } });
    await client.get(`/webhooks/${webhookId}/deliveries`, { apiKey });
    await client.post(`/webhooks/${webhookId}/test`, { apiKey });
    await client.get('/developers/usage', { apiKey });
    for (const suffix of ['a', 'b', 'c']) await client.get(`/webhooks/${webhookId}/unknown-${suffix}`, { apiKey });
    // 11 distinct endpoints, 16 requests so far (the polls below add more usage reads).
    const usage = await usageOnceCounted(developer, (data) => data.total >= 16);
    expect(usage.byEndpoint).toHaveLength(10);
    expect(usage.byEndpoint[0]).toEqual({ endpoint: 'GET /v1/timetable/developers/me', _count: 6 });
    expect(usage.total).toBeGreaterThan(usage.byEndpoint.reduce((sum: number, entry: { _count: number }) => sum + entry._count, 0));
  });
});
