import { describe, expect, it } from 'vitest';
import { MemoryCache, requestUrlKey, ResponseStore, RESPONSE_NAMESPACE, type StoredResponse } from '@timetable/cache';

const response: StoredResponse = {
  etag: '"abc"',
  contentType: 'application/json; charset=utf-8',
  cacheControl: 'public, max-age=600',
  route: '/v1/timetable/week/:week',
  lastModified: 'Tue, 10 Mar 2026 07:30:00 GMT',
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
    const keys: string[] = [];
    const recording = new ResponseStore({
      get: (key) => cache.get(key),
      set: (key, value, ttl) => {
        keys.push(key);
        return cache.set(key, value, ttl);
      },
      version: (namespace) => cache.version(namespace),
      bump: (namespace) => cache.bump(namespace),
      close: () => cache.close(),
    });
    await recording.set(0, 'k', response, 60);
    await cache.set(keys[0]!, Buffer.from('"etag"\nonly two lines'), 60);
    expect(await store.get(0, 'k')).toBeNull();
  });

  it('keeps an answer without Last-Modified as one with an empty date', async () => {
    const store = new ResponseStore(new MemoryCache());
    const undated = { ...response, lastModified: '' };
    await store.set(0, 'k', undated, 60);
    expect(await store.get(0, 'k')).toEqual(undated);
  });

  it('never reads an entry stored in the earlier four-line form, nor is read by it', async () => {
    const cache = new MemoryCache();
    const store = new ResponseStore(cache);
    // How the four-line form keyed and stored an iCal answer: read as five lines, its first body line would
    // become the date.
    await cache.set(`${RESPONSE_NAMESPACE}:v0:k`, Buffer.from('"e"\ntext/calendar\npublic\n/v1/timetable/ical/:semesterId\nBEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n'), 60);
    expect(await store.get(0, 'k')).toBeNull();
    await store.set(0, 'k', response, 60);
    expect((await cache.get(`${RESPONSE_NAMESPACE}:v0:k`))?.toString()).toMatch(/^"e"/);
  });
});
