import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { parseRateTiers, RedisRateLimiter, type RateDecision } from '@timetable/cache';
import { testInfrastructure } from '@timetable/testing';

const redis = new Redis(testInfrastructure().redisUrl);
const prefix = `test:${randomUUID()}:rate:`;

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

describe('the Redis rate limiter', () => {
  it('counts every request of one event-loop turn, of every client, in one command sent by its hash', async () => {
    const limiter = new RedisRateLimiter(redis, prefix);
    const tiers = parseRateTiers('10/1s,60/1m,1000/1h');
    await limiter.consume('warm-up', tiers);
    const sent = vi.spyOn(redis, 'sendCommand');
    try {
      const decisions = await Promise.all(Array.from({ length: 40 }, (_, client) => limiter.consume(`turn-${client % 20}`, tiers)));
      expect(sent.mock.calls.map(([command]) => command.name)).toEqual(['evalsha']);
      expect(decisions.map((decision) => decision.remaining)).toEqual(Array.from({ length: 40 }, (_, index) => (index < 20 ? 9 : 8)));
    } finally {
      sent.mockRestore();
    }
  });

  it('sends what arrives over several turns while a batch is away as the next batch, in one command', async () => {
    const limiter = new RedisRateLimiter(redis, prefix);
    const tiers = parseRateTiers('100/1m');
    await limiter.consume('warm-up', tiers);
    const send = redis.sendCommand.bind(redis);
    const sent = vi.spyOn(redis, 'sendCommand');
    // The first batch reaches Redis only half a second after it left: long enough for the turns below.
    sent.mockImplementationOnce((command) => {
      setTimeout(() => void send(command), 500);
      return command.promise;
    });
    try {
      const first = limiter.consume('away', tiers);
      while (sent.mock.calls.length === 0) await new Promise((resolve) => setImmediate(resolve));
      const meanwhile: Promise<RateDecision>[] = [];
      for (let turn = 0; turn < 3; turn += 1) {
        meanwhile.push(limiter.consume('away', tiers), limiter.consume('away', tiers));
        await new Promise((resolve) => setImmediate(resolve));
      }
      const decisions = await Promise.all([first, ...meanwhile]);
      expect(sent).toHaveBeenCalledTimes(2);
      expect(decisions.map((decision) => decision.remaining)).toEqual([99, 98, 97, 96, 95, 94, 93]);
    } finally {
      sent.mockRestore();
    }
  });

  it('fails every request of a turn whose command failed, and counts the next turn afresh', async () => {
    const limiter = new RedisRateLimiter(redis, prefix);
    const tiers = parseRateTiers('5/1m');
    const sendCommand = redis.sendCommand.bind(redis);
    const failing = vi.spyOn(redis, 'sendCommand').mockImplementationOnce(() => Promise.reject(new Error('connection lost')));
    try {
      const outcomes = await Promise.allSettled([limiter.consume('outage', tiers), limiter.consume('outage', tiers), limiter.consume('other', tiers)]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
      failing.mockImplementation(sendCommand);
      expect(await limiter.consume('outage', tiers)).toMatchObject({ allowed: true, remaining: 4 });
    } finally {
      failing.mockRestore();
    }
  });

  it('counts each tier and answers with the tier closest to its limit, with an expiry on every counter', async () => {
    const limiter = new RedisRateLimiter(redis, prefix);
    const tiers = parseRateTiers('3/1m,100/1h');
    const decisions = [];
    for (let i = 0; i < 4; i += 1) decisions.push(await limiter.consume('tiers', tiers));
    expect(decisions.map((decision) => decision.remaining)).toEqual([2, 1, 0, 0]);
    expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, true, false]);
    expect(decisions[3]).toMatchObject({ limit: 3 });
    expect(decisions[3]!.retryAfterSeconds).toBeGreaterThan(0);
    expect(decisions[3]!.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(await redis.get(`${prefix}tiers:3600`)).toBe('4');
    for (const window of [60, 3600]) {
      const ttl = await redis.pttl(`${prefix}tiers:${window}`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(window * 1000);
    }
  });

  it('keeps separate budgets per client', async () => {
    const limiter = new RedisRateLimiter(redis, prefix);
    const tiers = parseRateTiers('1/1m');
    expect((await limiter.consume('client-a', tiers)).allowed).toBe(true);
    expect((await limiter.consume('client-a', tiers)).allowed).toBe(false);
    expect((await limiter.consume('client-b', tiers)).allowed).toBe(true);
  });

  it('shares one budget when two replicas count concurrently on their own connections', async () => {
    const other = new Redis(testInfrastructure().redisUrl);
    try {
      const replicas = [new RedisRateLimiter(redis, prefix), new RedisRateLimiter(other, prefix)];
      const tiers = parseRateTiers('10/1m');
      const decisions = await Promise.all(Array.from({ length: 30 }, (_, i) => replicas[i % 2]!.consume('concurrent', tiers)));
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(10);
    } finally {
      await other.quit();
    }
  });

  it('honours the connection\'s key prefix on the script\'s keys', async () => {
    const namespace = `${prefix}ns:`;
    const prefixed = new Redis(testInfrastructure().redisUrl, { keyPrefix: namespace });
    try {
      await new RedisRateLimiter(prefixed, 'rate:').consume('client', parseRateTiers('5/1m'));
      expect(await redis.get(`${namespace}rate:client:60`)).toBe('1');
    } finally {
      await prefixed.quit();
    }
  });
});
