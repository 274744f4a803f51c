import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Knex } from '@timetable/db';
import { createMigratedKnex } from '@timetable/testing';
import { CATALOG_SCHEMA, catalogMigrations } from '../src/index.js';
import { FeedDatesStore, type FeedDateInput } from '../src/features/ical/feed-dates-store.js';

let knex: Knex;
let close: () => Promise<void>;
let store: FeedDatesStore;

const JANUARY = new Date('2026-01-10T12:00:00.000Z');
const MARCH = new Date('2026-03-01T08:00:00.000Z');

function rendering(overrides: Partial<FeedDateInput>): FeedDateInput {
  return { keyHash: 'feed-a', fingerprint: 'content-1', newestChange: JANUARY, thisSecond: MARCH, servedAt: MARCH, ...overrides };
}

beforeAll(async () => {
  ({ knex, close } = await createMigratedKnex(CATALOG_SCHEMA, catalogMigrations));
  store = new FeedDatesStore({ knex });
});

afterAll(() => close());

describe('the stored feed dates', () => {
  it('date a feed seen for the first time by its newest change, an empty one by this second', async () => {
    expect(await store.date(rendering({}))).toEqual(JANUARY);
    expect(await store.date(rendering({ keyHash: 'feed-empty', newestChange: null }))).toEqual(MARCH);
  });

  it('keep the date while the content is the same, and move it on with the content', async () => {
    expect(await store.date(rendering({ thisSecond: new Date('2026-03-02T00:00:00Z') }))).toEqual(JANUARY);
    const february = new Date('2026-02-01T00:00:00Z');
    expect(await store.date(rendering({ fingerprint: 'content-2', newestChange: february }))).toEqual(february);
    expect(await store.date(rendering({ fingerprint: 'content-3', newestChange: february }))).toEqual(MARCH);
    // Within the second that date was given: one second on, ahead of the clock.
    expect(await store.date(rendering({ fingerprint: 'content-4', newestChange: february }))).toEqual(new Date(MARCH.getTime() + 1000));
  });

  it('forget feeds not served since a time, and never date a returning one at or before any date they had', async () => {
    await store.date(rendering({ keyHash: 'feed-b', servedAt: new Date('2026-03-20T00:00:00Z') }));
    expect(await store.prune(new Date('2026-03-10T00:00:00Z'))).toBe(2);
    expect((await knex('feed_dates').select('key_hash')).map((row: { key_hash: string }) => row.key_hash)).toEqual(['feed-b']);
    const later = { thisSecond: new Date('2026-04-01T00:00:00Z'), servedAt: new Date('2026-04-01T00:00:00Z') };
    // feed-a was last dated a second past MARCH: a client may hold any date up to that.
    expect(await store.date(rendering({ ...later, fingerprint: 'content-5', newestChange: MARCH }))).toEqual(later.thisSecond);
    const afterThat = new Date('2026-03-05T00:00:00Z');
    expect(await store.date(rendering({ ...later, keyHash: 'feed-c', newestChange: afterThat }))).toEqual(afterThat);
  });

  it('only ever raise the watermark', async () => {
    const watermark = async () => (await knex('feed_dates_pruned').first<{ dated_up_to: Date }>('dated_up_to'))?.dated_up_to;
    const before = await watermark();
    expect(before).toEqual(new Date(MARCH.getTime() + 1000));
    expect(await store.prune(new Date('2026-01-01T00:00:00Z'))).toBe(0);
    const february = new Date('2026-02-01T00:00:00Z');
    expect(await store.date(rendering({ keyHash: 'feed-d', newestChange: null, thisSecond: february, servedAt: february }))).toEqual(february);
    expect(await store.prune(new Date('2026-02-02T00:00:00Z'))).toBe(1);
    expect(await watermark()).toEqual(before);
  });
});
