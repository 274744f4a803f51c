import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisRateLimiter } from '@timetable/cache';
import { testInfrastructure } from '@timetable/testing';
import { FakeKeyVerifier } from './support/fake-key-verifier.js';
import { DEVELOPER_ID, startTestGateway, type TestGateway } from './support/test-gateway.js';

const prefix = `test:${randomUUID()}:rate:`;
const connections: Redis[] = [];
const keyStore = new FakeKeyVerifier();
let replicaA: TestGateway;
let replicaB: TestGateway;

function redis(): Redis {
  const connection = new Redis(testInfrastructure().redisUrl);
  connections.push(connection);
  return connection;
}

beforeAll(async () => {
  const replica = () => startTestGateway({ rateLimits: '5/1m', registerLimits: '3/1m', rateLimiter: new RedisRateLimiter(redis(), prefix), verifier: keyStore });
  replicaA = await replica();
  replicaB = await replica();
});

afterAll(async () => {
  await replicaA.close();
  await replicaB.close();
  const cleanup = connections[0];
  if (cleanup) {
    const keys = await cleanup.keys(`${prefix}*`);
    if (keys.length > 0) await cleanup.del(...keys);
  }
  await Promise.all(connections.map((connection) => connection.quit().catch(() => connection.disconnect())));
});

describe('two gateway replicas sharing one Redis', () => {
  it('share one rate budget per client', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      statuses.push((await fetch(`${replicaA.api}/programs`)).status, (await fetch(`${replicaB.api}/programs`)).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const limited = await fetch(`${replicaA.api}/programs`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('RateLimit-Remaining')).toBe('0');
    expect(Number(limited.headers.get('Retry-After'))).toBeGreaterThan(0);
  });

  it('share one sign-up budget per client, apart from the read budget', async () => {
    const register = (replica: TestGateway) =>
      fetch(`${replica.api}/developers/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: `dev-${randomUUID()}@example.edu` }),
      });
    const statuses = [(await register(replicaA)).status, (await register(replicaB)).status, (await register(replicaA)).status];
    expect(statuses).toEqual([201, 201, 201]);
    const limited = await register(replicaB);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('Retry-After'))).toBeGreaterThan(0);
    expect(await limited.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
  });

  it('both see a revoked key as invalid at once', async () => {
    const key = `spk_${'k'.repeat(32)}`;
    keyStore.issue(key, DEVELOPER_ID);
    for (const replica of [replicaA, replicaB]) {
      expect((await fetch(`${replica.api}/developers/me`, { headers: { 'X-API-Key': key } })).status).toBe(200);
    }
    keyStore.revoke(key);
    for (const replica of [replicaA, replicaB]) {
      const response = await fetch(`${replica.api}/developers/me`, { headers: { 'X-API-Key': key } });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: { message: 'Invalid or revoked API key' } });
    }
  });
});

describe('Redis unreachable', () => {
  it('fails open: reads pass without limit headers instead of failing', async () => {
    const unreachable = new Redis('redis://127.0.0.1:1', { lazyConnect: true, enableOfflineQueue: false, retryStrategy: () => null });
    unreachable.on('error', () => undefined);
    const gateway = await startTestGateway({ rateLimits: '1/1m', rateLimiter: new RedisRateLimiter(unreachable, prefix) });
    try {
      for (let i = 0; i < 3; i += 1) {
        const response = await fetch(`${gateway.api}/programs`);
        expect(response.status).toBe(200);
        expect(response.headers.get('RateLimit-Limit')).toBeNull();
      }
    } finally {
      await gateway.close();
      unreachable.disconnect();
    }
  });
});
