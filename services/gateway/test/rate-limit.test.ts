import { afterEach, describe, expect, it } from 'vitest';
import type { RateDecision, RateLimiter } from '@timetable/cache';
import { startTestGateway, VALID_KEY, type TestGateway } from './support/test-gateway.js';

let gateway: TestGateway | undefined;
afterEach(() => gateway?.close());

const rateHeaders = (response: Response) => ({
  limit: response.headers.get('RateLimit-Limit'),
  remaining: response.headers.get('RateLimit-Remaining'),
  reset: response.headers.get('RateLimit-Reset'),
});

describe('public reads', () => {
  it('send RateLimit-* headers and answer 429 with Retry-After once a tier is exhausted', async () => {
    gateway = await startTestGateway({ rateLimits: '2/1m' });
    const first = await fetch(`${gateway.api}/programs`);
    expect(rateHeaders(first)).toEqual({ limit: '2', remaining: '1', reset: '60' });
    await fetch(`${gateway.api}/programs`);
    const limited = await fetch(`${gateway.api}/programs/00000000-0000-4000-8000-000000000000`);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('Retry-After'))).toBeGreaterThan(0);
    expect(rateHeaders(limited)).toMatchObject({ limit: '2', remaining: '0' });
    expect(await limited.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
  });

  it('enforce every tier: the tighter later tier limits even when the first has room', async () => {
    gateway = await startTestGateway({ rateLimits: '5/1s,3/1h' });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await fetch(`${gateway.api}/programs`)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('count per client IP, taken from X-Forwarded-For when the proxy is trusted', async () => {
    gateway = await startTestGateway({ rateLimits: '1/1m', trustProxy: 'loopback' });
    const from = (ip: string) => fetch(`${gateway!.api}/programs`, { headers: { 'X-Forwarded-For': ip } });
    expect((await from('203.0.113.1')).status).toBe(200);
    expect((await from('203.0.113.2')).status).toBe(200);
    expect((await from('203.0.113.1')).status).toBe(429);
  });

  it('give a whole IPv6 /64 one budget, so rotating addresses inside it does not escape the limit', async () => {
    gateway = await startTestGateway({ rateLimits: '2/1m', trustProxy: 'loopback' });
    const from = (ip: string) => fetch(`${gateway!.api}/programs`, { headers: { 'X-Forwarded-For': ip } });
    expect((await from('2001:db8:a:b::1')).status).toBe(200);
    expect((await from('2001:db8:a:b:9999:8888:7777:6666')).status).toBe(200);
    expect((await from('2001:db8:a:b::42')).status).toBe(429);
    expect((await from('2001:db8:a:c::1')).status).toBe(200);
  });

  it('ignore X-Forwarded-For unless TRUST_PROXY is set (the socket address counts)', async () => {
    gateway = await startTestGateway({ rateLimits: '1/1m' });
    expect((await fetch(`${gateway.api}/programs`, { headers: { 'X-Forwarded-For': '203.0.113.1' } })).status).toBe(200);
    expect((await fetch(`${gateway.api}/programs`, { headers: { 'X-Forwarded-For': '203.0.113.2' } })).status).toBe(429);
  });
});

describe('the personal feed and free rooms', () => {
  it('are public reads: open without a key, counted against the same read budget', async () => {
    gateway = await startTestGateway({ rateLimits: '2/1m' });
    const feed = await fetch(`${gateway.api}/ical?courseIds=6f1c1f55-5f4a-4a57-9d0e-7d2b2f0e0a01`);
    expect(feed.status).not.toBe(401);
    expect(rateHeaders(feed)).toMatchObject({ limit: '2', remaining: '1' });
    const rooms = await fetch(`${gateway.api}/rooms/free?from=2026-03-25T12:00:00Z&to=2026-03-25T13:00:00Z`);
    expect(rooms.status).not.toBe(401);
    expect(rateHeaders(rooms)).toMatchObject({ remaining: '0' });
    expect((await fetch(`${gateway.api}/ical?groupIds=x`)).status).toBe(429);
  });
});

describe('routes outside the limit', () => {
  it('developer and webhook routes, operational routes and documents are not counted', async () => {
    gateway = await startTestGateway({ rateLimits: '1/1m' });
    for (let i = 0; i < 3; i++) {
      for (const path of ['/developers/me', '/webhooks']) {
        const response = await fetch(`${gateway.api}${path}`, { headers: { 'X-API-Key': VALID_KEY } });
        expect(response.status).toBe(200);
        expect(response.headers.get('RateLimit-Limit')).toBeNull();
      }
      for (const path of ['/health', '/ready', '/metrics', '/docs', '/v1/timetable/openapi.json']) {
        expect((await fetch(`${gateway.origin}${path}`)).status, path).toBe(200);
      }
    }
    expect((await fetch(`${gateway.api}/programs`)).status).toBe(200);
  });
});

/** A sign-up from `ip` (trusted through X-Forwarded-For where the gateway trusts loopback). */
function register(api: string, ip?: string, body: unknown = { email: `dev-${Math.random()}@example.edu` }): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(ip ? { 'X-Forwarded-For': ip } : {}) };
  return fetch(`${api}/developers/register`, { method: 'POST', headers, body: JSON.stringify(body) });
}

describe('developer sign-ups (REGISTER_LIMITS)', () => {
  it('answer 429 RATE_LIMITED with Retry-After once the address spent its budget; a refused attempt counts too', async () => {
    gateway = await startTestGateway({ registerLimits: '3/1m,10/1d' });
    expect((await register(gateway.api)).status).toBe(201);
    expect((await register(gateway.api, undefined, { email: 'not-an-email' })).status).toBe(400);
    const last = await register(gateway.api);
    expect(last.status).toBe(201);
    expect(rateHeaders(last)).toEqual({ limit: '3', remaining: '0', reset: '60' });
    const limited = await register(gateway.api);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('Retry-After')).toBe('60');
    expect(await limited.json()).toEqual({
      error: { code: 'RATE_LIMITED', message: 'Rate limit exceeded, retry later', details: { retryAfterSeconds: 60 } },
    });
  });

  it('are a budget of their own: reads neither spend it nor are refused when it is spent', async () => {
    gateway = await startTestGateway({ rateLimits: '2/1m', registerLimits: '1/1m' });
    expect((await register(gateway.api)).status).toBe(201);
    expect((await register(gateway.api)).status).toBe(429);
    expect((await fetch(`${gateway.api}/programs`)).status).toBe(200);
    expect((await fetch(`${gateway.api}/programs`)).status).toBe(200);
    expect((await fetch(`${gateway.api}/programs`)).status).toBe(429);
  });

  it('give each client address one budget, a whole IPv6 /64 one together', async () => {
    gateway = await startTestGateway({ registerLimits: '1/1m', trustProxy: 'loopback' });
    expect((await register(gateway.api, '203.0.113.1')).status).toBe(201);
    expect((await register(gateway.api, '203.0.113.1')).status).toBe(429);
    expect((await register(gateway.api, '203.0.113.2')).status).toBe(201);
    expect((await register(gateway.api, '2001:db8:a:b::1')).status).toBe(201);
    expect((await register(gateway.api, '2001:db8:a:b:9999:8888:7777:6666')).status).toBe(429);
    expect((await register(gateway.api, '2001:db8:a:c::1')).status).toBe(201);
  });
});

describe('a failing limiter backend', () => {
  it('lets reads through (fail open) and warns once, not once a request', async () => {
    const broken: RateLimiter = {
      consume: (): Promise<RateDecision> => Promise.reject(new Error('redis down')),
      close: () => Promise.resolve(),
    };
    gateway = await startTestGateway({ rateLimiter: broken });
    for (let request = 0; request < 3; request += 1) {
      const response = await fetch(`${gateway.api}/programs`);
      expect(response.status).toBe(200);
      expect(response.headers.get('RateLimit-Limit')).toBeNull();
    }
    const warnings = gateway.logLines().filter((line) => line.msg === 'rate limiter unavailable, requests let through unlimited');
    expect(warnings).toHaveLength(1);
  });

  it('lets sign-ups through too', async () => {
    const broken: RateLimiter = {
      consume: (): Promise<RateDecision> => Promise.reject(new Error('redis down')),
      close: () => Promise.resolve(),
    };
    gateway = await startTestGateway({ rateLimiter: broken, registerLimits: '1/1m' });
    for (let attempt = 0; attempt < 2; attempt += 1) expect((await register(gateway.api)).status).toBe(201);
  });
});
