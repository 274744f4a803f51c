import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { parseRateTiers, RedisCache, RedisRateLimiter } from '@timetable/cache';
import { testInfrastructure } from '@timetable/testing';

const redis = new Redis(testInfrastructure().redisUrl);
const prefix = `test:${randomUUID()}:`;

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

describe('the Redis rate limiter', () => {
  it('shares one budget between two limiter instances (two gateway replicas)', async () => {
    const tiers = parseRateTiers('4/1m');
    const replicaA = new RedisRateLimiter(redis, `${prefix}rate:`);
    const replicaB = new RedisRateLimiter(new Redis(testInfrastructure().redisUrl), `${prefix}rate:`);
    const allowed = [];
    for (let i = 0; i < 3; i += 1) {
      allowed.push((await replicaA.consume('ip', tiers)).allowed, (await replicaB.consume('ip', tiers)).allowed);
    }
    expect(allowed.filter(Boolean)).toHaveLength(4);
    const denied = await replicaA.consume('ip', tiers);
    expect(denied).toMatchObject({ allowed: false, limit: 4, remaining: 0 });
    expect(denied.retryAfterSeconds).toBeGreaterThan(0);
    expect(denied.retryAfterSeconds).toBeLessThanOrEqual(60);
  });
});

describe('the Redis cache', () => {
  it('stores bytes with expiry and shares versions so one bump invalidates every replica', async () => {
    const cacheA = new RedisCache(redis, `${prefix}cache:`);
    const cacheB = new RedisCache(redis, `${prefix}cache:`);
    await cacheA.set('k', Buffer.from('Grüße'), 60);
    expect((await cacheB.get('k'))?.toString('utf8')).toBe('Grüße');
    const before = await cacheB.version('catalog');
    await cacheA.bump('catalog');
    expect(await cacheB.version('catalog')).toBe(before + 1);
    expect(await redis.ttl(`${prefix}cache:k`)).toBeGreaterThan(0);
  });
});
