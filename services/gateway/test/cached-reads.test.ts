import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { MemoryCache, MemoryRateLimiter, ResponseStore, requestUrlKey, type Cache, type RateDecision, type RateLimiter, type RateTier } from '@timetable/cache';
import { startTestGateway, VALID_KEY, type TestGateway } from './support/test-gateway.js';

/**
 * The gateway's cached-read path answers a stored response only where the Express path would have answered
 * the same; everything else passes on untouched. The fake services answer `/programs` with `{"data":[]...}`,
 * so a body of `from the store` shows which path answered.
 */

let gateway: TestGateway | undefined;
afterEach(() => gateway?.close());

const STORED_BODY = 'from the store';

async function storeWith(...paths: string[]): Promise<ResponseStore> {
  return storeIn(new MemoryCache(), ...paths);
}

async function storeIn(cache: Cache, ...paths: string[]): Promise<ResponseStore> {
  return storeDated(cache, '', ...paths);
}

/** Stored with that Last-Modified ('' for none), as the catalog stores a feed. */
async function storeDated(cache: Cache, lastModified: string, ...paths: string[]): Promise<ResponseStore> {
  const responses = new ResponseStore(cache);
  const version = await responses.version();
  for (const path of paths) {
    await responses.set(
      version,
      requestUrlKey(`/v1/timetable${path}`),
      { etag: '"e1"', contentType: 'text/plain; charset=utf-8', cacheControl: 'no-cache', route: '/v1/timetable/programs', lastModified, body: Buffer.from(STORED_BODY) },
      60,
    );
  }
  return responses;
}

/** node:http, because fetch sends neither a GET body nor a custom Host header. */
/** A limiter that failed lets the stored read through, without limit headers. */
async function expectStoredProgramsUnlimited(api: string): Promise<void> {
  const response = await fetch(`${api}/programs`);
  expect(response.status).toBe(200);
  expect(await response.text()).toBe(STORED_BODY);
  expect(response.headers.get('ratelimit-limit')).toBeNull();
}

function rawGet(url: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: 'GET', headers }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    outgoing.on('error', reject).end(body);
  });
}

describe('a stored response', () => {
  it('is answered with its headers, a request id and the read limit headers', async () => {
    gateway = await startTestGateway({ rateLimits: '5/1m', responses: await storeWith('/programs?page=1') });
    const response = await fetch(`${gateway.api}/programs?page=1`, { headers: { 'x-request-id': 'trace-1' } });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(STORED_BODY);
    expect(Object.fromEntries(['etag', 'cache-control', 'content-type', 'content-length', 'x-request-id', 'ratelimit-limit', 'ratelimit-remaining'].map((name) => [name, response.headers.get(name)]))).toEqual({
      etag: '"e1"',
      'cache-control': 'no-cache',
      'content-type': 'text/plain; charset=utf-8',
      'content-length': String(STORED_BODY.length),
      'x-request-id': 'trace-1',
      'ratelimit-limit': '5',
      'ratelimit-remaining': '4',
    });
  });

  it('is answered 304 without a body for a matching If-None-Match', async () => {
    gateway = await startTestGateway({ responses: await storeWith('/programs') });
    const response = await fetch(`${gateway.api}/programs`, { headers: { 'if-none-match': 'W/"e1"' } });
    expect(response.status).toBe(304);
    expect(response.headers.get('etag')).toBe('"e1"');
    expect(await response.text()).toBe('');
  });

  it('carries its Last-Modified and is answered 304 for an If-Modified-Since at or after it, If-None-Match deciding first', async () => {
    const lastModified = 'Tue, 10 Mar 2026 07:30:00 GMT';
    gateway = await startTestGateway({ responses: await storeDated(new MemoryCache(), lastModified, '/programs') });
    const get = (headers: Record<string, string>) => fetch(`${gateway!.api}/programs`, { headers });
    const plain = await get({});
    expect(plain.headers.get('last-modified')).toBe(lastModified);
    const notModified = await get({ 'if-modified-since': lastModified });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('last-modified')).toBe(lastModified);
    expect(await notModified.text()).toBe('');
    const answeredInFull: Record<string, string>[] = [
      { 'if-modified-since': 'Tue, 10 Mar 2026 07:29:59 GMT' },
      { 'if-modified-since': 'soon' },
      { 'if-modified-since': lastModified, 'if-none-match': '"other"' },
    ];
    for (const headers of answeredInFull) {
      const response = await get(headers);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(STORED_BODY);
    }
  });

  it('without a Last-Modified carries none and is answered in full whatever If-Modified-Since says', async () => {
    gateway = await startTestGateway({ responses: await storeWith('/programs') });
    const response = await fetch(`${gateway.api}/programs`, { headers: { 'if-modified-since': 'Fri, 31 Dec 9999 23:59:59 GMT' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('last-modified')).toBeNull();
  });

  it('is counted in the request metrics under its route and as a hit', async () => {
    gateway = await startTestGateway({ responses: await storeWith('/programs') });
    await fetch(`${gateway.api}/programs`);
    const metrics = await (await fetch(`${gateway.origin}/metrics`)).text();
    expect(metrics).toMatch(/^gateway_cached_reads_total\{result="hit",route="\/v1\/timetable\/programs"\} [1-9]/m);
    expect(metrics).toMatch(/^http_requests_total\{service="gateway",method="GET",route="\/v1\/timetable\/programs",status="200"\} [1-9]/m);
  });

  it('is not answered for another URL, a key route, a request with a body, a HEAD or a legacy host', async () => {
    gateway = await startTestGateway({ legacyHosts: ['old.example.edu'], responses: await storeWith('/programs', '/developers/me', '/webhooks') });
    expect(await (await fetch(`${gateway.api}/programs?other=1`)).text()).not.toBe(STORED_BODY);
    const me = await fetch(`${gateway.api}/developers/me`);
    expect(me.status).toBe(401);
    const webhooks = await fetch(`${gateway.api}/webhooks`, { headers: { 'x-api-key': VALID_KEY } });
    expect(webhooks.status).toBe(200);
    expect(await webhooks.json()).toEqual({ data: [] });
    // A GET with a malformed JSON body: the Express path refuses it, so the cached-read path must not answer it.
    const withBody = await rawGet(`${gateway.api}/programs`, { 'content-type': 'application/json' }, '{');
    expect(withBody.status).toBe(400);
    const head = await fetch(`${gateway.api}/programs`, { method: 'HEAD' });
    expect(head.headers.get('etag')).toBeNull();
    const legacy = await rawGet(`${gateway.api}/programs`, { host: 'OLD.example.edu:8080' });
    expect(legacy.status).toBe(301);
  });
});

describe('the read limit on the cached-read path', () => {
  it('charges each request once and answers 429 in the envelope, per client as the Express path counts them', async () => {
    gateway = await startTestGateway({ rateLimits: '2/1m', trustProxy: 'loopback', responses: await storeWith('/programs') });
    const from = (ip: string) => fetch(`${gateway!.api}/programs`, { headers: { 'x-forwarded-for': ip } });
    const first = await from('203.0.113.1');
    expect(first.headers.get('ratelimit-remaining')).toBe('1');
    expect((await from('203.0.113.2')).status).toBe(200);
    expect((await from('203.0.113.1')).headers.get('ratelimit-remaining')).toBe('0');
    const limited = await from('203.0.113.1');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
  });

  it('ignores X-Forwarded-For unless the proxy is trusted', async () => {
    gateway = await startTestGateway({ rateLimits: '1/1m', responses: await storeWith('/programs') });
    expect((await fetch(`${gateway.api}/programs`, { headers: { 'x-forwarded-for': '203.0.113.1' } })).status).toBe(200);
    expect((await fetch(`${gateway.api}/programs`, { headers: { 'x-forwarded-for': '203.0.113.2' } })).status).toBe(429);
  });
});

describe('an entry that cannot be written', () => {
  it('passes the request on, charged once', async () => {
    const responses = new ResponseStore(new MemoryCache());
    const broken = { etag: '"e1"', contentType: 'text/plain\u0001', cacheControl: 'no-cache', route: '/v1/timetable/programs', lastModified: '', body: Buffer.from(STORED_BODY) };
    await responses.set(await responses.version(), requestUrlKey('/v1/timetable/programs'), broken, 60);
    gateway = await startTestGateway({ rateLimits: '5/1m', responses });
    const response = await fetch(`${gateway.api}/programs`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ data: [] });
    expect(response.headers.get('ratelimit-remaining')).toBe('4');
  });
});

describe('a failing store', () => {
  it('costs only speed: the request takes the Express path', async () => {
    const broken: Cache = {
      get: () => Promise.reject(new Error('store down')),
      set: () => Promise.reject(new Error('store down')),
      version: () => Promise.reject(new Error('store down')),
      bump: () => Promise.reject(new Error('store down')),
      close: () => Promise.resolve(),
    };
    gateway = await startTestGateway({ responses: new ResponseStore(broken) });
    const response = await fetch(`${gateway.api}/programs`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ data: [] });
  });
});

/** Answers in a later turn of the event loop, as Redis does. */
async function later<T>(answer: () => T | Promise<T>): Promise<T> {
  await nextTurn();
  return answer();
}

/** The in-memory cache behind a round trip: what the gateway sees of Redis in distributed mode. */
function remoteCache(): Cache {
  const inner = new MemoryCache();
  return {
    get: (key) => later(() => inner.get(key)),
    set: (key, value, ttl) => later(() => inner.set(key, value, ttl)),
    version: (namespace) => later(() => inner.version(namespace)),
    bump: (namespace) => later(() => inner.bump(namespace)),
    close: () => inner.close(),
  };
}

describe('a store and a limiter outside the process (distributed mode)', () => {
  it('answer the same as in-process ones, once they have answered', async () => {
    const inner = new MemoryRateLimiter();
    const remoteLimiter: RateLimiter = { consume: (key, tiers) => later(() => inner.consume(key, tiers)), close: () => inner.close() };
    gateway = await startTestGateway({ rateLimits: '2/1m', rateLimiter: remoteLimiter, responses: await storeIn(remoteCache(), '/programs') });
    const first = await fetch(`${gateway.api}/programs`);
    expect(first.status).toBe(200);
    expect(await first.text()).toBe(STORED_BODY);
    expect([first.headers.get('etag'), first.headers.get('ratelimit-remaining')]).toEqual(['"e1"', '1']);
    expect((await fetch(`${gateway.api}/programs`)).headers.get('ratelimit-remaining')).toBe('0');
    const limited = await fetch(`${gateway.api}/programs`);
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
  });

  it('let the read through without limit headers when the limiter throws instead of answering', async () => {
    const throwing: RateLimiter = {
      consume: () => {
        throw new Error('limiter down');
      },
      close: () => Promise.resolve(),
    };
    gateway = await startTestGateway({ rateLimiter: throwing, responses: await storeIn(remoteCache(), '/programs') });
    await expectStoredProgramsUnlimited(gateway.api);
  });

  it('let the read through without limit headers when the in-memory limiter fails', async () => {
    class BrokenLimiter extends MemoryRateLimiter {
      override consume(): RateDecision {
        throw new Error('limiter bug');
      }
    }
    gateway = await startTestGateway({ rateLimiter: new BrokenLimiter(), responses: await storeWith('/programs') });
    await expectStoredProgramsUnlimited(gateway.api);
  });

  it('charge through a subclass that overrides consume, never around it', async () => {
    class CountingLimiter extends MemoryRateLimiter {
      calls = 0;
      override consume(clientKey: string, tiers: RateTier[]): RateDecision {
        this.calls += 1;
        return super.consume(clientKey, tiers);
      }
    }
    const limiter = new CountingLimiter();
    gateway = await startTestGateway({ rateLimiter: limiter, responses: await storeWith('/programs') });
    expect(await (await fetch(`${gateway.api}/programs`)).text()).toBe(STORED_BODY);
    expect(limiter.calls).toBe(1);
  });
});
