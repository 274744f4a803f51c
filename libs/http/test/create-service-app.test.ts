import { Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogger } from '@timetable/testing';
import { createServiceApp, listen, NotFoundError, ValidationError, type RunningServer } from '@timetable/http';

let server: RunningServer;
const { logger, lines } = captureLogger();

beforeAll(async () => {
  const routes = Router();
  routes.get('/things/:id', (req) => {
    throw new NotFoundError('thing', req.params.id);
  });
  routes.post('/things', (req, res) => {
    if (typeof req.body?.name !== 'string') throw new ValidationError('name is required');
    res.status(201).json({ data: { name: req.body.name } });
  });
  routes.get('/crash', () => {
    throw new Error('secret internals at /srv/app.ts:12');
  });
  routes.get('/async-crash', async () => {
    await Promise.resolve();
    throw new TypeError('boom');
  });
  const outages: Record<string, () => Error> = {
    refused: () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    'admin-shutdown': () => Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
    'pool-timeout': () => Object.assign(new Error('Knex: Timeout acquiring a connection'), { name: 'KnexTimeoutError' }),
    terminated: () => new Error('Connection terminated unexpectedly'),
  };
  routes.get('/outage/:kind', async (req) => {
    await Promise.resolve();
    throw (outages[req.params.kind] ?? (() => new Error('unknown')))();
  });
  const app = createServiceApp({
    name: 'test',
    logger,
    routes,
    readiness: [{ name: 'store', check: () => true }],
  });
  server = await listen(app, 0, '127.0.0.1');
});

afterAll(() => server.close());

async function call(path: string, init?: RequestInit) {
  const response = await fetch(`${server.url}${path}`, init);
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

function expectEnvelope(body: Record<string, unknown>, code: string) {
  expect(body).toEqual({ error: { code, message: expect.any(String), details: expect.any(Object) } });
}

describe('every non-2xx answer is the spec envelope', () => {
  it('an unknown route is 404 NOT_FOUND', async () => {
    const { status, body } = await call('/v1/timetable/does-not-exist');
    expect(status).toBe(404);
    expectEnvelope(body, 'NOT_FOUND');
  });

  it('a domain NotFoundError names the resource kind and the id', async () => {
    const { status, body } = await call('/v1/timetable/things/abc');
    expect(status).toBe(404);
    expectEnvelope(body, 'NOT_FOUND');
    expect((body.error as { message: string }).message).toContain('thing');
    expect((body.error as { message: string }).message).toContain('abc');
  });

  it.each(['refused', 'admin-shutdown', 'pool-timeout', 'terminated'])(
    'a database that is away (%s) is 503 SERVICE_UNAVAILABLE, never a crash or a 500',
    async (kind) => {
      const { status, body } = await call(`/v1/timetable/outage/${kind}`);
      expect(status).toBe(503);
      expectEnvelope(body, 'SERVICE_UNAVAILABLE');
    },
  );

  it('a malformed JSON body is 400 VALIDATION_ERROR, not a parser page', async () => {
    const { status, body } = await call('/v1/timetable/things', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name": ',
    });
    expect(status).toBe(400);
    expectEnvelope(body, 'VALIDATION_ERROR');
  });

  it('a body nested deeper than 32 levels is 400 VALIDATION_ERROR, one within them reaches the handler', async () => {
    const post = (body: string) => call('/v1/timetable/things', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const nested = (depth: number) => `{"name":"n","x":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    for (const depth of [33, 30_000]) {
      const { status, body } = await post(nested(depth));
      expect(status).toBe(400);
      expect(body).toEqual({ error: { code: 'VALIDATION_ERROR', message: 'Body validation failed: the JSON nests deeper than 32 levels', details: {} } });
    }
    expect((await post(nested(32))).status).toBe(201);
  });

  it('a body over the size limit is 400 VALIDATION_ERROR naming the limit', async () => {
    const body = JSON.stringify({ name: 'x'.repeat(70_000) });
    const response = await call('/v1/timetable/things', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(response.status).toBe(400);
    expectEnvelope(response.body, 'VALIDATION_ERROR');
    expect((response.body as { error: { message: string } }).error.message).toBe('Body validation failed: the body exceeds 65536 bytes');
  });

  it('a validation error from a handler is 400 VALIDATION_ERROR', async () => {
    const { status, body } = await call('/v1/timetable/things', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(status).toBe(400);
    expectEnvelope(body, 'VALIDATION_ERROR');
  });

  it('a crash is 500 INTERNAL_ERROR without a stack trace or internals', async () => {
    for (const path of ['/v1/timetable/crash', '/v1/timetable/async-crash']) {
      const { status, body } = await call(path);
      expect(status).toBe(500);
      expectEnvelope(body, 'INTERNAL_ERROR');
      expect(JSON.stringify(body)).not.toMatch(/srv\/app|boom|at /);
    }
    expect(lines().some((line) => line.msg === 'request failed')).toBe(true);
  });
});

describe('operational routes', () => {
  it('/health answers 200', async () => {
    expect((await call('/health')).status).toBe(200);
  });

  it('/ready reports each check', async () => {
    const { status, body } = await call('/ready');
    expect(status).toBe(200);
    expect(body).toEqual({ status: 'ready', checks: { store: 'ok' } });
  });

  it('/metrics exposes Prometheus text with the request histogram', async () => {
    const response = await fetch(`${server.url}/metrics`);
    expect(response.headers.get('content-type')).toContain('text/plain');
    expect(await response.text()).toContain('http_request_duration_seconds');
  });

  it('every response carries a request id, and a sane incoming one is kept', async () => {
    const response = await fetch(`${server.url}/health`, { headers: { 'x-request-id': 'abc-123' } });
    expect(response.headers.get('x-request-id')).toBe('abc-123');
  });
});

describe('logs redact secrets', () => {
  it('never writes an X-API-Key header value', async () => {
    await fetch(`${server.url}/health`, { headers: { 'x-api-key': 'spk_supersecretvalue' } });
    logger.info({ apiKey: 'spk_other', nested: { secret: 'webhook-secret-123' } }, 'probe');
    expect(JSON.stringify(lines())).not.toMatch(/spk_supersecretvalue|spk_other|webhook-secret-123/);
  });
});
