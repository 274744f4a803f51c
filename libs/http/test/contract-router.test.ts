import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineRoutes } from '@timetable/contracts/testing';
import { contractRouter, createServiceApp, DeveloperIdentity, listen, NotFoundError, type RunningServer } from '@timetable/http';
import { captureLogger } from '@timetable/testing';

const identity = new DeveloperIdentity('contract-router-test-secret');
const owner = '4b1c2f1e-0d5a-4c3e-9a7b-1f2e3d4c5b6a';

const thingsApi = defineRoutes('catalog-api', {
  // Written first on purpose: the router must still try the literal `/things/latest` before it.
  one: {
    method: 'get',
    path: '/things/{id}',
    summary: 'One thing',
    tag: 'Test',
    auth: false,
    params: z.object({ id: z.string().regex(/^\d+$/, 'must be a number') }),
    query: z.object({ tag: z.string().optional(), ids: z.union([z.string(), z.array(z.string())]).optional() }),
    responses: { 200: { description: 'The thing' } },
  },
  latest: { method: 'get', path: '/things/latest', summary: 'Latest', tag: 'Test', auth: false, responses: { 200: { description: 'Latest' } } },
  rename: {
    method: 'patch',
    path: '/things/{id}',
    summary: 'Rename',
    tag: 'Test',
    auth: true,
    params: z.object({ id: z.string() }),
    body: z.object({ name: z.string().min(1) }),
    responses: { 200: { description: 'Renamed' } },
  },
});

let server: RunningServer;

beforeAll(async () => {
  const routes = contractRouter(
    thingsApi,
    {
      one({ params, query, res }) {
        res.json({ id: params.id, query: query() });
      },
      latest({ res }) {
        res.json({ latest: true });
      },
      rename({ params, body, developerId, res }) {
        // Ownership before the body: a stranger's bad body is a 404, not a validation message.
        if (developerId !== owner) throw new NotFoundError('thing', params.id);
        res.json({ id: params.id, name: body().name });
      },
    },
    { identity },
  );
  server = await listen(createServiceApp({ name: 'test', logger: captureLogger('fatal').logger, routes }), 0, '127.0.0.1');
});

afterAll(() => server?.close());

async function call(method: string, path: string, init: { body?: unknown; developer?: string } = {}) {
  const headers: Record<string, string> = init.developer ? identity.headersFor(init.developer) : {};
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${server.url}/v1/timetable${path}`, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  return { status: response.status, body: (await response.json()) as Record<string, never> };
}

describe('routes registered from their contract entries', () => {
  it('serve the contract path and method, literal segments before parameters', async () => {
    expect(await call('GET', '/things/latest')).toEqual({ status: 200, body: { latest: true } });
    expect((await call('GET', '/things/7')).body).toEqual({ id: '7', query: {} });
    expect((await call('DELETE', '/things/7')).status).toBe(404);
  });

  it('parse path parameters with the contract schema: a mismatch is a 400 naming the parameter', async () => {
    const { status, body } = await call('GET', '/things/seven');
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: { code: 'VALIDATION_ERROR', message: 'Path validation failed: id: must be a number' } });
  });

  it('take the first of a repeated single-valued parameter, and every value where the schema takes a list', async () => {
    expect((await call('GET', '/things/7?tag=a&tag=b&ids=x&ids=y')).body).toEqual({ id: '7', query: { tag: 'a', ids: ['x', 'y'] } });
  });

  it('need the verified developer on a key route, and parse the body only when the handler asks', async () => {
    expect((await call('PATCH', '/things/7', { body: { name: 'n' } })).status).toBe(401);
    expect((await call('PATCH', '/things/7', { body: { name: '' }, developer: '0f0e0d0c-0b0a-4909-8807-060504030201' })).status).toBe(404);
    const invalid = await call('PATCH', '/things/7', { body: { name: '' }, developer: owner });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({ error: { message: expect.stringMatching(/^Body validation failed: name: /) } });
    expect(await call('PATCH', '/things/7', { body: { name: 'new' }, developer: owner })).toEqual({ status: 200, body: { id: '7', name: 'new' } });
  });

  it('refuse to register a key route without the identity that verifies it', () => {
    const keyRoute = { rename: thingsApi.rename };
    expect(() => contractRouter(keyRoute, { rename: () => undefined })).toThrow(/PATCH \/things\/\{id\} needs an API key/);
  });
});
