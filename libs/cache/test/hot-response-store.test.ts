import { describe, expect, it } from 'vitest';
import { HotResponseStore, MemoryCache, type StoredResponse } from '@timetable/cache';

/** A shared cache seen through its promises (as Redis is), counting its reads. */
class CountingCache extends MemoryCache {
  reads = 0;
  versionReads = 0;
  failVersion = false;
  override get(key: string): Promise<Buffer | null> {
    this.reads += 1;
    return super.get(key);
  }
  override version(namespace: string): Promise<number> {
    this.versionReads += 1;
    return this.failVersion ? Promise.reject(new Error('redis down')) : super.version(namespace);
  }
}

function rendered(text: string): StoredResponse {
  return { etag: `"${text}"`, contentType: 'text/plain', cacheControl: 'public', route: '/v1/timetable/x', lastModified: '', body: Buffer.from(text) };
}

function setUp(options: { maxBytes?: number } = {}) {
  const cache = new CountingCache();
  let clock = 1_000;
  const hot = new HotResponseStore(cache, { versionCheckMs: 250, entryMaxAgeMs: 5_000, now: () => clock, ...options });
  return { cache, hot, advance: (ms: number) => (clock += ms) };
}

describe('the hot response store', () => {
  it('answers an entry it has seen under the trusted version without reading the shared cache, and without a promise', async () => {
    const { cache, hot } = setUp();
    await hot.set(await hot.version(), 'k', rendered('one'), 60);
    expect((await hot.current('k'))?.body.toString()).toBe('one');
    const [reads, versionReads] = [cache.reads, cache.versionReads];
    const again = hot.current('k');
    expect(again).not.toBeInstanceOf(Promise);
    expect((again as StoredResponse).body.toString()).toBe('one');
    expect([cache.reads, cache.versionReads]).toEqual([reads, versionReads]);
  });

  it('reads the version again once the check interval has passed, and then answers the new version\'s entry', async () => {
    const { hot, advance } = setUp();
    await hot.set(await hot.version(), 'k', rendered('old'), 60);
    expect((await hot.current('k'))?.body.toString()).toBe('old');
    await hot.set(await hot.bump(), 'k', rendered('new'), 60);
    advance(251);
    expect((await hot.current('k'))?.body.toString()).toBe('new');
    expect((await hot.current('k'))?.body.toString()).toBe('new');
  });

  it('never answers an entry of a version older than the one the shared cache held the check interval before', async () => {
    const { hot, advance } = setUp();
    // The shared cache's version at each moment, to tell what a request at a later moment must at least see.
    const history: { at: number; version: number }[] = [{ at: 0, version: await hot.version() }];
    let now = 0;
    await hot.set(history[0]!.version, 'k', rendered(String(history[0]!.version)), 60);
    for (let step = 0; step < 400; step += 1) {
      const elapsed = (step * 37) % 90;
      advance(elapsed);
      now += elapsed;
      if (step % 7 === 3) {
        const version = await hot.bump();
        await hot.set(version, 'k', rendered(String(version)), 60);
        history.push({ at: now, version });
      }
      const answered = Number((await hot.current('k'))?.body.toString());
      const floor = history.filter((change) => change.at <= now - 250).at(-1)?.version ?? history[0]!.version;
      expect(answered).toBeGreaterThanOrEqual(floor);
    }
    expect(history.length).toBeGreaterThan(50);
  });

  it('keeps an entry across unchanged version checks, and reads it again once it is older than its maximum age here', async () => {
    const { cache, hot, advance } = setUp();
    await hot.set(await hot.version(), 'k', rendered('one'), 60);
    await hot.current('k');
    const [reads, versionReads] = [cache.reads, cache.versionReads];
    for (let i = 0; i < 16; i += 1) {
      advance(300);
      expect((await hot.current('k'))?.body.toString()).toBe('one');
    }
    expect(cache.versionReads).toBe(versionReads + 16);
    expect(cache.reads).toBe(reads);
    advance(300);
    expect((await hot.current('k'))?.body.toString()).toBe('one');
    expect(cache.reads).toBe(reads + 1);
  });

  it('keeps at most its byte budget, dropping the oldest entries first', async () => {
    const { cache, hot } = setUp({ maxBytes: 10 });
    const version = await hot.version();
    for (const key of ['a', 'b', 'c']) await hot.set(version, key, rendered(`${key}bcd`), 60);
    for (const key of ['a', 'b', 'c']) await hot.current(key);
    const reads = cache.reads;
    expect(hot.current('c')).not.toBeInstanceOf(Promise);
    expect(hot.current('b')).not.toBeInstanceOf(Promise);
    expect((await hot.current('a'))?.body.toString()).toBe('abcd');
    expect(cache.reads).toBe(reads + 1);
  });

  it('fails a lookup whose version read fails, and reads the version again on the next one', async () => {
    const { cache, hot } = setUp();
    await hot.set(await hot.version(), 'k', rendered('one'), 60);
    cache.failVersion = true;
    await expect(hot.current('k')).rejects.toThrow('redis down');
    cache.failVersion = false;
    expect((await hot.current('k'))?.body.toString()).toBe('one');
  });

  it('answers a miss as a miss and keeps nothing for it', async () => {
    const { cache, hot } = setUp();
    expect(await hot.current('absent')).toBeNull();
    const reads = cache.reads;
    expect(await hot.current('absent')).toBeNull();
    expect(cache.reads).toBe(reads + 1);
  });
});
