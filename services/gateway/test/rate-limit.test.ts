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

  it('ignore X-Forwarded-For unless TRUST_PROXY is set (the socket address counts)', async () => {
    gateway = await startTestGateway({ rateLimits: '1/1m' });
    expect((await fetch(`${gateway.api}/programs`, { headers: { 'X-Forwarded-For': '203.0.113.1' } })).status).toBe(200);
    expect((await fetch(`${gateway.api}/programs`, { headers: { 'X-Forwarded-For': '203.0.113.2' } })).status).toBe(429);
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

describe('a failing limiter backend', () => {
  it('lets reads through (fail open) and logs a warning', async () => {
    const broken: RateLimiter = {
      consume: (): Promise<RateDecision> => Promise.reject(new Error('redis down')),
      close: () => Promise.resolve(),
    };
    gateway = await startTestGateway({ rateLimiter: broken });
    const response = await fetch(`${gateway.api}/programs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('RateLimit-Limit')).toBeNull();
    expect(gateway.logLines().some((line) => line.msg === 'rate limiter unavailable, request let through unlimited')).toBe(true);
  });
});
