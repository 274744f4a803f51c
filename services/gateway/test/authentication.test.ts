import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allApiRoutes } from '@timetable/contracts';
import { DEVELOPER_ID, startTestGateway, VALID_KEY, type TestGateway } from './support/test-gateway.js';

interface ResponseBody {
  data: { id: string; forged: unknown };
  error: { code: string; message: string };
  seen: unknown;
}

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(() => gateway.close());

async function get(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${gateway.api}${path}`, { headers });
  return { status: response.status, body: (await response.json()) as ResponseBody };
}

describe('key-required routes', () => {
  it('answers 401 Missing X-API-Key header without the header', async () => {
    const { status, body } = await get('/developers/me');
    expect(status).toBe(401);
    expect(body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Missing X-API-Key header', details: {} } });
  });

  it('rejects a key without the spk_ prefix before asking the key store', async () => {
    const before = gateway.verifier.calls.length;
    const { status, body } = await get('/webhooks', { 'X-API-Key': `sk_${'a'.repeat(32)}` });
    expect(status).toBe(401);
    expect(body.error.message).toBe('Invalid or revoked API key');
    expect(gateway.verifier.calls.length).toBe(before);
  });

  it('answers 401 Invalid or revoked API key for an unknown key', async () => {
    const { status, body } = await get('/developers/me', { 'X-API-Key': `spk_${'z'.repeat(32)}` });
    expect(status).toBe(401);
    expect(body.error).toMatchObject({ code: 'UNAUTHORIZED', message: 'Invalid or revoked API key' });
  });

  it('stops accepting a revoked key at once (no cached verification)', async () => {
    const key = `spk_${'r'.repeat(32)}`;
    gateway.verifier.issue(key, DEVELOPER_ID);
    expect((await get('/developers/me', { 'X-API-Key': key })).status).toBe(200);
    gateway.verifier.revoke(key);
    const { status, body } = await get('/developers/me', { 'X-API-Key': key });
    expect(status).toBe(401);
    expect(body.error.message).toBe('Invalid or revoked API key');
  });

  it('accepts the header name in any case and forwards the signed identity', async () => {
    for (const name of ['X-API-Key', 'x-api-key', 'X-API-KEY']) {
      const { status, body } = await get('/developers/me', { [name]: VALID_KEY });
      expect(status).toBe(200);
      expect(body.data.id).toBe(DEVELOPER_ID);
    }
  });

  it('guards every webhook path and method and the developer routes regardless of path case', async () => {
    for (const [method, path] of [
      ['GET', '/webhooks'],
      ['POST', '/webhooks'],
      ['PATCH', '/webhooks/abc'],
      ['DELETE', '/webhooks/abc'],
      ['POST', '/webhooks/abc/test'],
      ['POST', '/webhooks/abc/deliveries/def/redeliver'],
      ['POST', '/webhooks/abc/recover'],
      ['POST', '/Webhooks/abc/Recover/'],
      ['POST', '/developers/regenerate-key'],
      ['POST', '/developers/deactivate'],
      ['GET', '/developers/usage'],
      ['GET', '/Developers/ME/'],
      ['GET', '/WEBHOOKS'],
    ] as const) {
      const response = await fetch(`${gateway.api}${path}`, { method });
      expect(response.status, `${method} ${path}`).toBe(401);
    }
  });

  it('leaves anonymous routes open, register included', async () => {
    expect((await get('/programs')).status).toBe(200);
    const register = await fetch(`${gateway.api}/developers/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'a@example.edu' }),
    });
    expect(register.status).toBe(201);
  });
});

describe('identity headers', () => {
  it('strips forged x-timetable-developer* headers from every request', async () => {
    const forged = { 'X-Timetable-Developer': DEVELOPER_ID, 'x-timetable-developer-signature': 'f'.repeat(64) };
    const anonymous = await get('/programs', forged);
    expect(anonymous.body.seen).toEqual({ developer: null, forged: null });
    const guarded = await get('/developers/me', { ...forged, 'x-timetable-developer-extra': 'x' });
    expect(guarded.status).toBe(401);
    const authenticated = await get('/developers/me', { 'x-timetable-developer-extra': 'x', 'X-API-Key': VALID_KEY });
    expect(authenticated.body.data).toEqual({ id: DEVELOPER_ID, forged: null });
  });
});

describe('without a key verifier (developer-auth not wired)', () => {
  it('answers 503 on key routes and keeps anonymous routes working', async () => {
    const bare = await startTestGateway({ verifier: null });
    try {
      const response = await fetch(`${bare.api}/developers/me`, { headers: { 'X-API-Key': VALID_KEY } });
      expect(response.status).toBe(503);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('SERVICE_UNAVAILABLE');
      expect((await fetch(`${bare.api}/programs`)).status).toBe(200);
    } finally {
      await bare.close();
    }
  });
});

describe('with a route list of its own', () => {
  it('takes its key rule from that list, the one its usage patterns and OpenAPI document come from', async () => {
    const keyed = allApiRoutes.map((route) => (route.path === '/programs/{id}' ? { ...route, auth: true } : route));
    const custom = await startTestGateway({ apiRoutes: keyed });
    try {
      const anonymous = await fetch(`${custom.api}/programs/42`);
      expect(anonymous.status).toBe(401);
      expect((await fetch(`${gateway.api}/programs/42`)).status).not.toBe(401);
      const document = (await (await fetch(`${custom.api}/openapi.json`)).json()) as { paths: Record<string, { get: { security?: unknown } }> };
      expect(document.paths['/programs/{id}']!.get.security).toEqual([{ ApiKey: [] }]);
    } finally {
      await custom.close();
    }
  });
});
