import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERNAL_ROUTES, topics, type UsageEvent } from '@timetable/contracts';
import type { Knex } from '@timetable/db';
import { InProcessBus } from '@timetable/events';
import { DeveloperIdentity } from '@timetable/http';
import { serveModule, type ServedModule } from '@timetable/service-kit';
import { captureLogger, createMigratedKnex } from '@timetable/testing';
import { createDeveloperAuthService, DEVELOPER_AUTH_SCHEMA, developerAuthMigrations, type DeveloperAuthModule } from '../src/index.js';

const NOW = new Date('2025-06-30T12:00:00.000Z');
const DAY_MS = 86_400_000;
const { logger, lines } = captureLogger();
const bus = new InProcessBus(logger);
const identity = new DeveloperIdentity('an-internal-identity-secret-for-tests');
const webhookCounts = new Map<string, number>();
const issuedKeys: string[] = [];
let knex: Knex;
let closeDatabase: () => Promise<void>;
let service: DeveloperAuthModule;
let server: ServedModule;

interface Answer {
  status: number;
  body: Record<string, unknown> & { data?: Record<string, unknown> };
}

async function call(method: string, path: string, options: { developerId?: string; body?: unknown; raw?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.developerId) Object.assign(headers, identity.headersFor(options.developerId));
  const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const response = await fetch(`${server.url}${path}`, { method, headers, body });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

let emailCounter = 0;
async function register(body: Record<string, unknown> = {}): Promise<{ id: string; apiKey: string; answer: Answer }> {
  emailCounter += 1;
  const answer = await call('POST', '/v1/timetable/developers/register', { body: { email: `dev${emailCounter}@example.edu`, ...body } });
  const data = answer.body.data as { id: string; apiKey: string } | undefined;
  if (data) issuedKeys.push(data.apiKey);
  return { id: data?.id ?? '', apiKey: data?.apiKey ?? '', answer };
}

function expectError(answer: Answer, status: number, code: string, message?: string): void {
  expect(answer.status).toBe(status);
  expect(answer.body).toEqual({ error: { code, message: message ?? expect.any(String), details: expect.any(Object) } });
}

beforeAll(async () => {
  ({ knex, close: closeDatabase } = await createMigratedKnex(DEVELOPER_AUTH_SCHEMA, developerAuthMigrations));
  service = await createDeveloperAuthService({
    knex,
    bus,
    logger,
    identity,
    webhookCounter: { countFor: (developerId) => Promise.resolve(webhookCounts.get(developerId) ?? 0) },
    now: () => NOW,
  });
  server = await serveModule(service, { name: 'developer-auth', logger });
});

afterAll(async () => {
  await server.close();
  await closeDatabase();
});

describe('POST /developers/register', () => {
  it('answers 201 with the account, the key and a message', async () => {
    const { answer, apiKey } = await register({ name: 'Ada Lovelace' });
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      data: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        email: `dev${emailCounter}@example.edu`,
        name: 'Ada Lovelace',
        apiKey: expect.stringMatching(/^spk_[A-Za-z0-9_-]{32}$/),
        apiKeyHint: apiKey.slice(-4),
        createdAt: NOW.toISOString(),
      },
      message: expect.any(String),
    });
  });

  it('stores only the sha256 hash and the hint of the key', async () => {
    const { id, apiKey } = await register();
    const row = (await knex('developers').where('id', id).first()) as Record<string, unknown>;
    expect(row.key_hash).toBe(createHash('sha256').update(apiKey).digest('hex'));
    expect(row.api_key_hint).toBe(apiKey.slice(-4));
    expect(JSON.stringify(row)).not.toContain(apiKey);
    expect(JSON.stringify(row)).not.toContain(apiKey.slice(4));
  });

  it('answers 409 CONFLICT for an email already registered; emails are case-sensitive', async () => {
    await call('POST', '/v1/timetable/developers/register', { body: { email: 'Grace@example.edu' } });
    const again = await call('POST', '/v1/timetable/developers/register', { body: { email: 'Grace@example.edu', name: 'Other' } });
    expectError(again, 409, 'CONFLICT', 'Email already registered');
    const otherCase = await call('POST', '/v1/timetable/developers/register', { body: { email: 'grace@example.edu' } });
    expect(otherCase.status).toBe(201);
  });

  it('accepts an email of 254 characters and a name of 100', async () => {
    const email = `${'a'.repeat(254 - '@example.edu'.length)}@example.edu`;
    const answer = await call('POST', '/v1/timetable/developers/register', { body: { email, name: 'n'.repeat(100) } });
    expect(answer.status).toBe(201);
  });

  it.each([
    ['a missing email', { name: 'No Email' }],
    ['an invalid email', { email: 'not-an-email' }],
    ['an email of 255 characters', { email: `${'a'.repeat(255 - '@example.edu'.length)}@example.edu` }],
    ['a name of 101 characters', { email: 'long-name@example.edu', name: 'n'.repeat(101) }],
    ['a non-string name', { email: 'number-name@example.edu', name: 42 }],
  ])('answers 400 VALIDATION_ERROR for %s', async (_case, body) => {
    expectError(await call('POST', '/v1/timetable/developers/register', { body }), 400, 'VALIDATION_ERROR');
  });

  it('answers 400 for a malformed JSON body', async () => {
    expectError(await call('POST', '/v1/timetable/developers/register', { raw: '{"email":' }), 400, 'VALIDATION_ERROR');
  });
});

describe('GET /developers/me', () => {
  it('returns the account with _count.webhooks and never the key', async () => {
    const { id, apiKey } = await register({ name: 'Me' });
    webhookCounts.set(id, 2);
    const answer = await call('GET', '/v1/timetable/developers/me', { developerId: id });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      data: {
        id,
        email: `dev${emailCounter}@example.edu`,
        name: 'Me',
        apiKeyHint: apiKey.slice(-4),
        isActive: true,
        createdAt: NOW.toISOString(),
        updatedAt: NOW.toISOString(),
        _count: { webhooks: 2 },
      },
    });
  });

  it('answers null for a name that was not given', async () => {
    const { id } = await register();
    expect((await call('GET', '/v1/timetable/developers/me', { developerId: id })).body.data?.name).toBeNull();
  });

  it('is 401 without the gateway identity', async () => {
    expectError(await call('GET', '/v1/timetable/developers/me'), 401, 'UNAUTHORIZED', 'Missing X-API-Key header');
  });
});

describe('key verification', () => {
  it('resolves an active key through the module and the internal route', async () => {
    const { id, apiKey } = await register();
    expect(await service.keyVerifier.verify(apiKey)).toEqual({ developerId: id });
    const answer = await call('POST', INTERNAL_ROUTES.verifyKey, { body: { apiKey } });
    expect(answer).toEqual({ status: 200, body: { developerId: id } });
  });

  it('rejects unknown keys and keys without the spk_ prefix', async () => {
    const { apiKey } = await register();
    expect(await service.keyVerifier.verify(`spk_${'A'.repeat(32)}`)).toBeNull();
    expect(await service.keyVerifier.verify(apiKey.replace(/^spk_/, 'pk_'))).toBeNull();
    const answer = await call('POST', INTERNAL_ROUTES.verifyKey, { body: { apiKey: `spk_${'B'.repeat(32)}` } });
    expect(answer.status).toBe(404);
    expect(JSON.stringify(answer.body)).not.toContain('BBBB');
  });
});

describe('POST /developers/regenerate-key', () => {
  it('issues a new key and invalidates the old one at once', async () => {
    const { id, apiKey: oldKey } = await register();
    const answer = await call('POST', '/v1/timetable/developers/regenerate-key', { developerId: id });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      data: { apiKey: expect.stringMatching(/^spk_[A-Za-z0-9_-]{32}$/), apiKeyHint: expect.any(String) },
      message: expect.any(String),
    });
    const { apiKey: newKey, apiKeyHint } = answer.body.data as { apiKey: string; apiKeyHint: string };
    issuedKeys.push(newKey);
    expect(newKey).not.toBe(oldKey);
    expect(apiKeyHint).toBe(newKey.slice(-4));
    expect(await service.keyVerifier.verify(oldKey)).toBeNull();
    expect(await service.keyVerifier.verify(newKey)).toEqual({ developerId: id });
    expect((await call('GET', '/v1/timetable/developers/me', { developerId: id })).body.data?.apiKeyHint).toBe(apiKeyHint);
  });
});

describe('POST /developers/deactivate', () => {
  it('answers 200 {message}; the key is rejected afterwards and webhooks are untouched', async () => {
    const { id, apiKey } = await register();
    webhookCounts.set(id, 1);
    const answer = await call('POST', '/v1/timetable/developers/deactivate', { developerId: id });
    expect(answer).toEqual({ status: 200, body: { message: expect.any(String) } });
    expect(await service.keyVerifier.verify(apiKey)).toBeNull();
    expect((await call('POST', INTERNAL_ROUTES.verifyKey, { body: { apiKey } })).status).toBe(404);
    expectError(await call('GET', '/v1/timetable/developers/me', { developerId: id }), 401, 'UNAUTHORIZED');
    expect(webhookCounts.get(id)).toBe(1);
    const [row] = await knex('developers').where('id', id).select('is_active');
    expect(row).toEqual({ is_active: false });
  });
});

describe('GET /developers/usage', () => {
  function usage(developerId: string, endpoint: string, daysAgo: number): UsageEvent {
    return { id: randomUUID(), developerId, endpoint, statusCode: 200, occurredAt: new Date(NOW.getTime() - daysAgo * DAY_MS).toISOString() };
  }

  async function publish(events: UsageEvent[]): Promise<void> {
    await bus.publish(events.map((value) => ({ topic: topics.usage.name, key: value.developerId, value })));
  }

  it('counts the trailing 30 days, top 10 endpoints by count then name, duplicates once', async () => {
    const { id } = await register();
    const { id: other } = await register();
    const events: UsageEvent[] = [];
    // Endpoint i is called i + 1 times, so the order is known; e00/e01 tie on purpose at the bottom.
    for (let index = 0; index < 12; index += 1) {
      const endpoint = `GET /v1/timetable/e${String(index).padStart(2, '0')}`;
      for (let repeat = 0; repeat <= index; repeat += 1) events.push(usage(id, endpoint, 1));
    }
    events.push(usage(id, 'GET /v1/timetable/e00', 0), usage(id, 'GET /v1/timetable/old', 31), usage(other, 'GET /v1/timetable/e11', 1));
    events.push(usage(id, 'GET /v1/timetable/edge', 30));
    await publish(events);
    const first = events[0];
    if (first) await publish([first]);

    const answer = await call('GET', '/v1/timetable/developers/usage', { developerId: id });
    expect(answer.status).toBe(200);
    const data = answer.body.data as { total: number; byEndpoint: { endpoint: string; _count: number }[]; period: unknown };
    expect(data.total).toBe(78 + 1 + 1);
    expect(data.period).toEqual({ from: new Date(NOW.getTime() - 30 * DAY_MS).toISOString(), to: NOW.toISOString() });
    expect(data.byEndpoint).toHaveLength(10);
    expect(data.byEndpoint.slice(0, 2)).toEqual([
      { endpoint: 'GET /v1/timetable/e11', _count: 12 },
      { endpoint: 'GET /v1/timetable/e10', _count: 11 },
    ]);
    expect(data.byEndpoint.at(-1)).toEqual({ endpoint: 'GET /v1/timetable/e02', _count: 3 });
  });

  it('orders endpoints with equal counts by name', async () => {
    const { id } = await register();
    await publish([usage(id, 'POST /v1/timetable/webhooks', 2), usage(id, 'GET /v1/timetable/developers/me', 2)]);
    const answer = await call('GET', '/v1/timetable/developers/usage', { developerId: id });
    expect((answer.body.data as { byEndpoint: unknown }).byEndpoint).toEqual([
      { endpoint: 'GET /v1/timetable/developers/me', _count: 1 },
      { endpoint: 'POST /v1/timetable/webhooks', _count: 1 },
    ]);
  });

  it('is empty for a developer without requests', async () => {
    const { id } = await register();
    const answer = await call('GET', '/v1/timetable/developers/usage', { developerId: id });
    expect((answer.body.data as { total: number; byEndpoint: unknown[] })).toMatchObject({ total: 0, byEndpoint: [] });
  });
});

describe('audit log', () => {
  it('has a line per registration, rotation (with the new hint) and deactivation, and never a key', async () => {
    const { id, apiKey } = await register();
    const rotated = await call('POST', '/v1/timetable/developers/regenerate-key', { developerId: id });
    const { apiKey: newKey, apiKeyHint } = rotated.body.data as { apiKey: string; apiKeyHint: string };
    issuedKeys.push(newKey);
    await call('POST', '/v1/timetable/developers/deactivate', { developerId: id });
    const audit = lines().filter((line) => line.developerId === id && String(line.event).startsWith('audit.'));
    expect(audit).toEqual([
      expect.objectContaining({ event: 'audit.timetable.developer.registered', developerId: id }),
      expect.objectContaining({ event: 'audit.timetable.developer.key_rotated', developerId: id, apiKeyHint }),
      expect.objectContaining({ event: 'audit.timetable.developer.deactivated', developerId: id }),
    ]);
    expect(apiKey).not.toBe(newKey);
    const everything = JSON.stringify(lines());
    for (const key of issuedKeys) expect(everything).not.toContain(key.slice(4));
  });
});
