import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryCache } from '@timetable/cache';

const bytes = (size: number) => Buffer.alloc(size, 1);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2026-03-02T10:00:00Z'));
});
afterEach(() => vi.useRealTimers());

describe('the in-memory cache', () => {
  it('stays within its byte budget by dropping the least recently used entries', async () => {
    const cache = new MemoryCache(310); // three entries of 100 bytes under one-character keys
    await cache.set('a', bytes(100), 60);
    await cache.set('b', bytes(100), 60);
    await cache.set('c', bytes(100), 60);
    vi.advanceTimersByTime(1_000);
    expect(await cache.get('a')).not.toBeNull(); // a is now the most recently used
    await cache.set('d', bytes(100), 60);
    expect(await cache.get('b')).toBeNull();
    expect(await cache.get('a')).not.toBeNull();
    expect(await cache.get('c')).not.toBeNull();
    expect(await cache.get('d')).not.toBeNull();
  });

  it('forgets an entry when its time is up', async () => {
    const cache = new MemoryCache();
    await cache.set('a', bytes(1), 5);
    vi.advanceTimersByTime(4_999);
    expect(await cache.get('a')).not.toBeNull();
    vi.advanceTimersByTime(1);
    expect(await cache.get('a')).toBeNull();
  });

  it('counts keys in its budget, so many small entries under long keys stay bounded', async () => {
    const cache = new MemoryCache(1_000);
    for (let index = 0; index < 100; index += 1) await cache.set(`${'k'.repeat(190)}${index}`, bytes(1), 60);
    let kept = 0;
    for (let index = 0; index < 100; index += 1) if (await cache.get(`${'k'.repeat(190)}${index}`)) kept += 1;
    expect(kept).toBeLessThanOrEqual(2);
    expect(kept).toBeGreaterThan(0);
  });

  it('keeps nothing larger than its whole budget', async () => {
    const cache = new MemoryCache(10);
    await cache.set('big', bytes(11), 60);
    expect(await cache.get('big')).toBeNull();
  });

  it('counts versions per namespace', async () => {
    const cache = new MemoryCache();
    expect(await cache.version('catalog')).toBe(0);
    expect(await cache.bump('catalog')).toBe(1);
    expect(await cache.version('catalog')).toBe(1);
    expect(await cache.version('other')).toBe(0);
  });
});
