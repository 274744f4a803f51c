import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, expectError, uniqueEmail } from './support/api-client.js';
import { startTarget, type Target } from './support/target.js';

/**
 * A tight first tier with a long window, so every request of this file lands in one window and the
 * outcome does not depend on timing. Against an external stack its own tiers apply; the test reads
 * what is left from RateLimit-Remaining instead of assuming a number.
 */
const RATE_LIMITS = '3/10s,100/1m,1000/1h';
/** Sign-ups: the same for the distributed run (scripts/stack/run-black-box.ts). */
const REGISTER_LIMITS = '3/1h';

let target: Target;
let client: ApiClient;

beforeAll(async () => {
  target = await startTarget({ rateLimits: RATE_LIMITS, registerLimits: REGISTER_LIMITS });
  client = new ApiClient(target.baseUrl);
});

afterAll(() => target?.stop());

/** Spends whatever is left of the read budget; resolves with the first 429. */
async function readUntilLimited(): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const response = await client.get('/statistics');
    if (response.status === 429) return expectError(response, 429, 'RATE_LIMITED');
    expect(response.status).toBe(200);
  }
  throw new Error('no 429 within 50 public reads');
}

describe('public reads are rate limited per client: the request past the limit answers 429', () => {
  it('sends RateLimit-* headers and, once the tier is exhausted, 429 RATE_LIMITED with Retry-After', async () => {
    const first = await client.get('/programs');
    expect(first.status).toBe(200);
    const limit = Number(first.headers.get('ratelimit-limit'));
    const remaining = Number(first.headers.get('ratelimit-remaining'));
    expect(limit).toBeGreaterThan(0);
    expect(remaining).toBeLessThan(limit);
    expect(Number(first.headers.get('ratelimit-reset'))).toBeGreaterThan(0);

    // A rendered week: from its second request on, the gateway's cached-read path answers it. Each request
    // is charged exactly once, whichever path answers it.
    for (let i = remaining - 1; i >= 0; i--) {
      const read = await client.get('/week/2026-W12');
      expect(read.status).toBe(200);
      expect(read.headers.get('ratelimit-remaining')).toBe(String(i));
    }
    const limitedCachedRead = await client.get('/week/2026-W12');
    expectError(limitedCachedRead, 429, 'RATE_LIMITED');
    const limited = await client.get('/programs');
    expectError(limited, 429, 'RATE_LIMITED');
    for (const name of ['content-type', 'ratelimit-limit', 'ratelimit-remaining']) {
      expect(limitedCachedRead.headers.get(name)).toBe(limited.headers.get(name));
    }
    expect(limitedCachedRead.headers.get('etag')).toBeNull();
    expect(limitedCachedRead.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(limited.headers.get('ratelimit-limit')).toBe(String(limit));
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    // Every public read shares the budget, whatever the route.
    expectError(await client.get('/changes'), 429, 'RATE_LIMITED');
    expectError(await client.get(`/ical?courseIds=${randomUUID()}`), 429, 'RATE_LIMITED');
    expectError(await client.get('/rooms/free?from=2026-03-25T12:00:00Z&to=2026-03-25T13:00:00Z'), 429, 'RATE_LIMITED');
  });
});

describe('developer and webhook routes are not rate limited', () => {
  it('still serves register, the developer account and webhooks after the read budget is spent', async () => {
    await readUntilLimited();
    const developer = await client.registerDeveloper();
    for (let i = 0; i < 5; i++) {
      const me = await client.get('/developers/me', { apiKey: developer.apiKey });
      expect(me.status).toBe(200);
      expect(me.headers.get('retry-after')).toBeNull();
      expect((await client.get('/webhooks', { apiKey: developer.apiKey })).status).toBe(200);
    }
    expect((await client.post('/webhooks', { apiKey: developer.apiKey, json: { url: 'http://receiver.internal:9/hooks' } })).status).toBe(201);
    expect((await client.get('/developers/usage', { apiKey: developer.apiKey })).status).toBe(200);
  });
});

describe('developer sign-ups have a budget per client address (REGISTER_LIMITS)', () => {
  const register = () => client.post('/developers/register', { json: { email: uniqueEmail() } });

  it('answers the sign-up past the budget with 429 RATE_LIMITED and Retry-After', async () => {
    const first = await register();
    expect(first.status, first.text).toBe(201);
    const remaining = Number(first.headers.get('ratelimit-remaining'));
    expect(remaining).toBeLessThan(Number(first.headers.get('ratelimit-limit')));
    for (let left = remaining - 1; left >= 0; left--) {
      const next = await register();
      expect(next.status, next.text).toBe(201);
      expect(next.headers.get('ratelimit-remaining')).toBe(String(left));
    }
    const limited = await register();
    expectError(limited, 429, 'RATE_LIMITED');
    expect(limited.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    // The budget is charged before the body is read: an invalid sign-up is refused alike.
    expectError(await client.post('/developers/register', { json: { email: 'not-an-email' } }), 429, 'RATE_LIMITED');
  });
});
