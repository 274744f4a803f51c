import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { HotResponseStore, RedisCache, type StoredResponse } from '@timetable/cache';
import { testInfrastructure } from '@timetable/testing';

const writer = new Redis(testInfrastructure().redisUrl);
const reader = new Redis(testInfrastructure().redisUrl);
const prefix = `test:${randomUUID()}:cache:`;

afterAll(async () => {
  const keys = await writer.keys(`${prefix}*`);
  if (keys.length > 0) await writer.del(...keys);
  await Promise.all([writer.quit(), reader.quit()]);
});

function rendered(text: string): StoredResponse {
  return { etag: `"${text}"`, contentType: 'text/plain', cacheControl: 'public', route: '/v1/timetable/x', lastModified: '', body: Buffer.from(text) };
}

describe('the hot response store on Redis', () => {
  it('answers a hot entry from this process, and a catalog change made by another replica once the check interval has passed', async () => {
    const CHECK_MS = 100;
    const catalog = new HotResponseStore(new RedisCache(writer, prefix));
    const gateway = new HotResponseStore(new RedisCache(reader, prefix), { versionCheckMs: CHECK_MS });
    await catalog.set(await catalog.version(), 'k', rendered('before'), 60);
    expect((await gateway.current('k'))?.body.toString()).toBe('before');
    const hot = gateway.current('k');
    expect(hot).not.toBeInstanceOf(Promise);
    await catalog.set(await catalog.bump(), 'k', rendered('after'), 60);
    await sleep(CHECK_MS + 10);
    expect((await gateway.current('k'))?.body.toString()).toBe('after');
  });
});
