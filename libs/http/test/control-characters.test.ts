import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toleratingControlCharacters } from '@timetable/contracts';
import { defineRoutes } from '@timetable/contracts/testing';
import { contractRouter, createServiceApp, listen, type RunningServer } from '@timetable/http';
import { controlCharacterPath } from '@timetable/http/testing';
import { captureLogger } from '@timetable/testing';

/** Every control character of Unicode (category Cc): C0, DEL and C1. */
const CONTROLS = [...Array.from({ length: 0x20 }, (_, code) => code), 0x7f, ...Array.from({ length: 0x20 }, (_, code) => 0x80 + code)].map((code) =>
  String.fromCharCode(code),
);

const probeApi = defineRoutes('catalog-api', {
  find: {
    method: 'get',
    path: '/probes',
    summary: 'Find',
    tag: 'Test',
    auth: false,
    query: z.object({ name: z.string().optional(), ids: toleratingControlCharacters(z.string().optional()) }),
    responses: { 200: { description: 'Found' } },
  },
  plain: { method: 'get', path: '/probes/plain', summary: 'No query', tag: 'Test', auth: false, responses: { 200: { description: 'Plain' } } },
  create: {
    method: 'post',
    path: '/probes',
    summary: 'Create',
    tag: 'Test',
    auth: false,
    body: z.object({ name: z.string(), tags: z.array(z.string()).optional() }),
    responses: { 201: { description: 'Created' } },
  },
});

let server: RunningServer;

beforeAll(async () => {
  const routes = contractRouter(probeApi, {
    find: ({ query, res }) => void res.json({ query: query() }),
    plain: ({ res }) => void res.json({ plain: true }),
    create: ({ body, res }) => void res.status(201).json({ body: body() }),
  });
  server = await listen(createServiceApp({ name: 'test', logger: captureLogger('fatal').logger, routes }), 0, '127.0.0.1');
});

afterAll(() => server?.close());

async function call(path: string, body?: unknown) {
  const init = body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
  const response = await fetch(`${server.url}/v1/timetable${path}`, init);
  return { status: response.status, body: (await response.json()) as { error?: { code: string; message: string; details: unknown } } };
}

describe('controlCharacterPath', () => {
  it('finds every C0 and C1 control and DEL, in a string, in a nested value and in an object key', () => {
    for (const control of CONTROLS) {
      expect(controlCharacterPath(`a${control}b`)).toEqual([]);
      expect(controlCharacterPath({ list: ['ok', { deep: `x${control}` }] })).toEqual(['list', 1, 'deep']);
      expect(controlCharacterPath({ [`k${control}`]: 'v' })).toEqual([`k${control}`]);
    }
  });

  it('lets printable text through: accents, emoji, U+00A0, U+FFFD, format characters', () => {
    expect(controlCharacterPath({ name: 'Müller 😀\u00a0\ufffd\u200b', n: 3, ok: true, none: null })).toBeUndefined();
  });

  it('walks a nesting far deeper than the call stack allows', () => {
    let deep: unknown = 'bottom\u0000';
    for (let level = 0; level < 200_000; level += 1) deep = [deep];
    expect(controlCharacterPath(deep)).toHaveLength(200_000);
  });
});

describe('control characters in contract routes', () => {
  it('refuse a control character in a query parameter: 400 VALIDATION_ERROR naming it', async () => {
    for (const encoded of ['%00', '%09', '%0A', '%1F', '%7F', '%C2%80', '%C2%9F']) {
      const response = await call(`/probes?name=a${encoded}b`);
      expect(response.status).toBe(400);
      expect(response.body.error).toEqual({
        code: 'VALIDATION_ERROR',
        message: 'Query validation failed: name: must not contain control characters',
        details: { issues: [{ path: 'name', message: 'must not contain control characters' }] },
      });
    }
  });

  it('refuse it in a repeated value, in an undeclared parameter and on a route without a query schema', async () => {
    expect((await call('/probes?name=a&name=b%00')).body.error?.message).toMatch(/^Query validation failed: name: /);
    expect((await call('/probes?other=%00')).body.error?.message).toMatch(/^Query validation failed: other: /);
    expect((await call('/probes/plain?x=%00')).body.error?.message).toMatch(/^Query validation failed: x: /);
    expect((await call('/probes/plain?%00=1')).status).toBe(400);
  });

  it('pass a parameter whose contract tolerates them to its handler as a malformed value', async () => {
    expect(await call('/probes?ids=a%00b')).toEqual({ status: 200, body: { query: { ids: 'a\u0000b' } } });
    expect(await call('/probes?name=Caf%C3%A9%20%C2%A0x')).toEqual({ status: 200, body: { query: { name: 'Café \u00a0x' } } });
  });

  it('refuse a control character in any body string, naming its path', async () => {
    const nested = await call('/probes', { name: 'ok', tags: ['fine', 'bad\u0000'] });
    expect(nested.status).toBe(400);
    expect(nested.body.error?.message).toBe('Body validation failed: tags.1: must not contain control characters');
    // Refused before the schema, so even a field the schema would drop never passes.
    expect((await call('/probes', { name: 'ok', extra: { note: 'line\nbreak' } })).body.error?.message).toMatch(/^Body validation failed: extra.note: /);
    expect(await call('/probes', { name: 'Zoë' })).toEqual({ status: 201, body: { body: { name: 'Zoë' } } });
  });
});
