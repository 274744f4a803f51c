import { describe, expect, it } from 'vitest';
import { etagMatches, MemoryCache, requestUrlKey, ResponseStore, RESPONSE_NAMESPACE, type StoredResponse } from '@timetable/cache';

const response: StoredResponse = {
  etag: '"abc"',
  contentType: 'application/json; charset=utf-8',
  cacheControl: 'public, max-age=600',
  route: '/v1/timetable/week/:week',
  body: Buffer.from('{"line":"one\\ntwo"}\n'),
};

describe('the response store', () => {
  it('gives back what was stored, byte for byte, including line breaks in the body', async () => {
    const store = new ResponseStore(new MemoryCache());
    const version = await store.version();
    await store.set(version, requestUrlKey('/v1/timetable/week/2026-W12?groupIds=a'), response, 60);
    const found = await store.get(version, requestUrlKey('/v1/timetable/week/2026-W12?groupIds=a'));
    expect(found).toEqual(response);
    expect(await store.get(version, requestUrlKey('/v1/timetable/week/2026-W12'))).toBeNull();
  });

  it('retires every entry with one bump of the namespace version', async () => {
    const cache = new MemoryCache();
    const store = new ResponseStore(cache);
    const version = await store.version();
    await store.set(version, 'k', response, 60);
    expect(await store.bump()).toBe(version + 1);
    expect(await cache.version(RESPONSE_NAMESPACE)).toBe(version + 1);
    expect(await store.get(await store.version(), 'k')).toBeNull();
  });

  it('reads the current version at once from the in-memory cache, and through a promise from any other', async () => {
    const memory = new MemoryCache();
    const inMemory = new ResponseStore(memory);
    await inMemory.set(0, 'k', response, 60);
    expect(inMemory.current('k')).toEqual(response);
    await inMemory.bump();
    expect(inMemory.current('k')).toBeNull();

    // The same cache seen through its port only, as the store sees Redis.
    const remote = new ResponseStore({
      get: (key) => memory.get(key),
      set: (key, value, ttl) => memory.set(key, value, ttl),
      version: (namespace) => memory.version(namespace),
      bump: (namespace) => memory.bump(namespace),
      close: () => memory.close(),
    });
    await remote.set(1, 'k', response, 60);
    const pending = remote.current('k');
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toEqual(response);
  });

  it('reads a subclass of the in-memory cache that overrides a read through that override', async () => {
    class FailingReads extends MemoryCache {
      override get(): Promise<Buffer | null> {
        return Promise.reject(new Error('reads fail'));
      }
    }
    const store = new ResponseStore(new FailingReads());
    await store.set(0, 'k', response, 60);
    const pending = store.current('k');
    expect(pending).toBeInstanceOf(Promise);
    await expect(pending).rejects.toThrow('reads fail');
  });

  it('treats an entry that is not in its format as absent', async () => {
    const cache = new MemoryCache();
    const store = new ResponseStore(cache);
    await cache.set(`${RESPONSE_NAMESPACE}:v0:k`, Buffer.from('"etag"\nonly two lines'), 60);
    expect(await store.get(0, 'k')).toBeNull();
  });
});

describe('If-None-Match', () => {
  it.each([
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    ['*', true],
    ['"abd"', false],
    [undefined, false],
    ['', false],
  ])('%s matches "abc": %s', (header, expected) => {
    expect(etagMatches(header, '"abc"')).toBe(expected);
  });
});
