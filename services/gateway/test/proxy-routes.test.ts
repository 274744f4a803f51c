import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter, parseRateTiers } from '@timetable/cache';
import { allApiRoutes } from '@timetable/contracts';
import { InProcessBus } from '@timetable/events';
import { createGatewayApp, createProxyRoutes, HttpKeyVerifier, type UpstreamUrls } from '@timetable/gateway';
import { createServiceApp, DeveloperIdentity, listen, rawBodyOf, type RunningServer } from '@timetable/http';
import { captureLogger } from '@timetable/testing';
import { DEVELOPER_ID, VALID_KEY } from './support/test-gateway.js';

const { logger } = captureLogger('fatal');
const identity = new DeveloperIdentity(randomBytes(16).toString('hex'));
const services: RunningServer[] = [];
let gateway: RunningServer;
let ready = true;

interface EchoBody {
  service: string;
  raw: string | null;
  error: { code: string; message: string };
}

/** A service that echoes what reached it; developer-auth also answers the internal key check. */
function echoService(name: string): Router {
  const router = Router();
  router.all('/{*rest}', (req, res) => {
    const raw = rawBodyOf(req)?.toString('utf8') ?? null;
    res.json({ service: name, url: req.originalUrl, body: req.body ?? null, raw, developer: identity.read(req.headers), apiKey: req.headers['x-api-key'] ?? null });
  });
  return router;
}

async function startService(name: string): Promise<string> {
  const app = createServiceApp({
    name,
    logger,
    routes: echoService(name),
    keepRawBody: true,
    readiness: [{ name: 'flag', check: () => ready }],
    configure: (serviceApp) => {
      serviceApp.post('/internal/keys/verify', (req, res) => {
        const apiKey = (req.body as { apiKey?: string }).apiKey;
        if (apiKey === VALID_KEY) res.json({ developerId: DEVELOPER_ID });
        else if (apiKey === 'spk_explode') res.status(500).json({});
        else res.status(404).json({ error: { code: 'NOT_FOUND', message: 'Unknown or inactive API key', details: {} } });
      });
    },
  });
  const server = await listen(app, 0, '127.0.0.1');
  services.push(server);
  return server.url;
}

beforeAll(async () => {
  const urls: UpstreamUrls = {
    catalogApi: await startService('catalog-api'),
    sync: await startService('sync'),
    changes: await startService('changes'),
    webhooks: await startService('webhook-dispatcher'),
    developerAuth: await startService('developer-auth'),
  };
  const app = createGatewayApp({
    logger,
    upstreams: [createProxyRoutes(urls, logger, allApiRoutes)],
    readiness: [],
    keyVerifier: new HttpKeyVerifier({ developerAuthUrl: urls.developerAuth }),
    identity,
    rateLimiter: new MemoryRateLimiter(),
    rateTiers: parseRateTiers('1000/1s'),
    registerTiers: parseRateTiers('1000/1s'),
    bus: new InProcessBus(logger),
    publicBaseUrl: 'https://api.example.edu',
    legacyHosts: [],
    trustProxy: false,
  });
  gateway = await listen(app, 0, '127.0.0.1');
});

afterAll(async () => {
  await gateway.close();
  for (const service of services) await service.close();
});

async function call(path: string, init: RequestInit = {}) {
  const response = await fetch(`${gateway.url}/v1/timetable${path}`, init);
  return { status: response.status, requestId: response.headers.get('x-request-id'), body: (await response.json()) as EchoBody };
}

describe('distributed routing', () => {
  it.each([
    ['/programs?active=true', 'catalog-api'],
    ['/week/2025-W10?roomId=x', 'catalog-api'],
    ['/ical/abc', 'catalog-api'],
    ['/ical?courseIds=a,%20b&roomIds=c', 'catalog-api'],
    ['/ical/?groupIds=a', 'catalog-api'],
    ['/ical/abc/url', 'sync'],
    ['/rooms/free?from=2026-03-25T12:00:00Z&to=2026-03-25T13:00:00Z&minCapacity=30', 'catalog-api'],
    ['/sync/status', 'sync'],
    ['/changes/42', 'changes'],
  ])('forwards %s to %s with the full path and query', async (path, service) => {
    const { status, body } = await call(path);
    expect(status).toBe(200);
    expect(body).toMatchObject({ service, url: `/v1/timetable${path}` });
  });

  it.each(allApiRoutes.map((route) => [route.method.toUpperCase(), route.path, route.service]))(
    'sends %s %s to %s, the owner its contract entry names',
    async (method, path, service) => {
      const concrete = path.replace(/\{[^}]+\}/g, 'x1');
      const { body } = await call(concrete, { method, headers: { 'X-API-Key': VALID_KEY } });
      expect(body).toMatchObject({ service, url: `/v1/timetable${concrete}` });
    },
  );

  it('keeps the request id across the hop', async () => {
    const response = await fetch(`${gateway.url}/v1/timetable/programs`, { headers: { 'X-Request-Id': 'trace-123' } });
    expect(response.headers.get('x-request-id')).toBe('trace-123');
  });

  it('passes JSON bodies and the signed identity, never the raw key', async () => {
    const { body } = await call('/webhooks', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-API-Key': VALID_KEY },
      body: JSON.stringify({ url: 'https://example.org/hook' }),
    });
    expect(body).toMatchObject({ service: 'webhook-dispatcher', body: { url: 'https://example.org/hook' }, developer: DEVELOPER_ID, apiKey: null });
  });

  it('forwards a JSON body as the bytes received, decompressed, whatever their layout', async () => {
    const text = '{ "url" : "https://example.org/hook",\n  "url": "https://example.org/last", "n": 1.50 }';
    const headers = { 'content-type': 'application/json', 'X-API-Key': VALID_KEY };
    const plain = await call('/webhooks', { method: 'POST', headers, body: text });
    expect(plain.body).toMatchObject({ raw: text, body: { url: 'https://example.org/last', n: 1.5 } });
    const gzipped = await call('/webhooks', { method: 'POST', headers: { ...headers, 'content-encoding': 'gzip' }, body: gzipSync(text) });
    expect(gzipped.body).toMatchObject({ raw: text, body: { url: 'https://example.org/last' } });
  });

  it('answers a body nested too deep or oversized with 400, before any service', async () => {
    const headers = { 'content-type': 'application/json', 'X-API-Key': VALID_KEY };
    // About 30,000 levels fit in 64 kB: a proxy that serialised the parsed body again would overflow its stack.
    for (const depth of [33, 30_000]) {
      const deep = await call('/webhooks', { method: 'POST', headers, body: `{"a":${'['.repeat(depth)}${']'.repeat(depth)}}` });
      expect(deep.status, String(depth)).toBe(400);
      expect(deep.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Body validation failed: the JSON nests deeper than 32 levels' });
      expect(deep.body.service).toBeUndefined();
    }
    const nested = (depth: number) => `{"a":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    expect((await call('/webhooks', { method: 'POST', headers, body: nested(32) })).body.raw).toBe(nested(32));
    const large = await call('/webhooks', { method: 'POST', headers, body: JSON.stringify({ url: 'x'.repeat(70_000) }) });
    expect(large.status).toBe(400);
    expect(large.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Body validation failed: the body exceeds 65536 bytes' });
    expect(large.body.service).toBeUndefined();
  });

  it('verifies keys over HTTP: 404 is an invalid key, a failing developer-auth is 503', async () => {
    expect((await call('/developers/me', { headers: { 'X-API-Key': VALID_KEY } })).body.service).toBe('developer-auth');
    expect((await call('/developers/me', { headers: { 'X-API-Key': 'spk_unknown' } })).status).toBe(401);
    expect((await call('/developers/me', { headers: { 'X-API-Key': 'spk_explode' } })).status).toBe(503);
  });

  it('answers paths no route documents with 404 in the envelope, without asking a service', async () => {
    for (const path of ['/nothing-here', '/programs/x1/unknown', '/changes/x1/y']) {
      const { status, body } = await call(path);
      expect(status, path).toBe(404);
      expect(body.error.code, path).toBe('NOT_FOUND');
    }
  });

  it('stays ready, and keeps serving, while the services behind it are not ready', async () => {
    ready = false;
    try {
      expect((await fetch(`${gateway.url}/ready`)).status).toBe(200);
      expect((await call('/changes/42')).status).toBe(200);
    } finally {
      ready = true;
    }
  });

  it('answers 503 SERVICE_UNAVAILABLE for the routes of a service that is down, and serves the others', async () => {
    const down = await startService('gone');
    const changes = await startService('changes');
    const sync = await startService('sync');
    const proxyOnly = createGatewayApp({
      logger,
      upstreams: [createProxyRoutes({ catalogApi: down, sync, changes, webhooks: down, developerAuth: down }, logger, allApiRoutes)],
      readiness: [],
      keyVerifier: undefined,
      identity,
      rateLimiter: new MemoryRateLimiter(),
      rateTiers: parseRateTiers('1000/1s'),
      registerTiers: parseRateTiers('1000/1s'),
      bus: new InProcessBus(logger),
      publicBaseUrl: 'https://api.example.edu',
      legacyHosts: [],
      trustProxy: false,
    });
    await services.find((service) => service.url === down)?.close();
    const server = await listen(proxyOnly, 0, '127.0.0.1');
    try {
      for (const path of ['/programs', '/week/2025-W10', '/ical/abc']) {
        const response = await fetch(`${server.url}/v1/timetable${path}`);
        expect(response.status).toBe(503);
        expect(await response.json()).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE', message: 'The catalog-api service is unavailable' } });
      }
      expect((await fetch(`${server.url}/v1/timetable/changes`)).status).toBe(200);
      expect((await fetch(`${server.url}/v1/timetable/sync/status`)).status).toBe(200);
      expect((await fetch(`${server.url}/ready`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
