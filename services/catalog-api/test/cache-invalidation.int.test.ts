import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryCache } from '@timetable/cache';
import { metricsRegistry } from '@timetable/observability';
import { RESPONSE_NAMESPACE } from '@timetable/cache';
import { startCatalog, stateOf, type CatalogHarness } from './support/catalog-harness.js';
import { events, universityStates } from './support/university-fixture.js';

/**
 * A cache invalidation that fails after the catalog committed: the batch is not retried (it would change
 * nothing and never bump again), the bump itself is retried until it gets through, and no cached body is
 * kept longer than 60 s, so stale reads end within a minute even if the bump never succeeds.
 */
class FlakyCache extends MemoryCache {
  bumpsFailing = false;
  readonly storedFor: number[] = [];

  override bump(namespace: string): Promise<number> {
    if (this.bumpsFailing) return Promise.reject(new Error('cache unavailable'));
    return super.bump(namespace);
  }

  override set(key: string, value: Buffer, ttlSeconds: number): Promise<void> {
    this.storedFor.push(ttlSeconds);
    return super.set(key, value, ttlSeconds);
  }
}

const cache = new FlakyCache();
let catalog: CatalogHarness;

async function failures(): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric('catalog_cache_invalidation_failures_total')?.get();
  return metric?.values[0]?.value ?? 0;
}

async function eventually(condition: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  catalog = await startCatalog(undefined, cache);
  await catalog.publish(universityStates);
});

afterAll(() => catalog.close());

describe('a cache invalidation that fails after the catalog committed', () => {
  it('keeps the committed batch, counts the failure and retries the bump until it succeeds', async () => {
    const version = await cache.version(RESPONSE_NAMESPACE);
    const failuresBefore = await failures();
    cache.bumpsFailing = true;
    await catalog.publish([stateOf({ type: 'event', data: { ...events.uebungOnce, title: 'Verlegt' } })]);
    expect((await catalog.knex('events').where('id', events.uebungOnce.id).first()).title).toBe('Verlegt');
    expect(await failures()).toBeGreaterThan(failuresBefore);
    expect(await cache.version(RESPONSE_NAMESPACE)).toBe(version);

    cache.bumpsFailing = false;
    await eventually(async () => (await cache.version(RESPONSE_NAMESPACE)) > version);
  });

  it('stores no response longer than 60 seconds, whatever the route asks', async () => {
    for (const path of ['/week/2026-W13', '/semesters/' + events.uebungOnce.semesterId + '/courses']) {
      expect((await catalog.get(path)).status).toBe(200);
    }
    expect(cache.storedFor.length).toBeGreaterThan(0);
    expect(Math.max(...cache.storedFor)).toBeLessThanOrEqual(60);
  });
});
