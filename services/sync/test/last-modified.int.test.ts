/**
 * The other validator an upstream may send: Last-Modified without an ETag. Sync keeps it with the feed's hash
 * and asks the next time with If-Modified-Since, taking a 304 without a download. The upstream here is the
 * simulator behind a proxy that dates each feed's content by when it first served it, and answers a request
 * naming that date with 304.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calendarBodyHash } from '../src/features/read/body-hash.js';
import type { SyncService } from '../src/create-sync-service.js';
import { changeOneFeed, startFeedProxy, type FeedProxy } from './feed-proxy.js';
import { createSyncHarness, type SyncHarness } from './sync-harness.js';

let harness: SyncHarness;
let proxy: FeedProxy;
let service: SyncService;
let groupCount: number;
const answered = { notModified: 0, full: 0, conditional: 0, withEtag: 0 };
/** When each feed content was first served, as an HTTP date: its Last-Modified. */
const firstServed = new Map<string, string>();

beforeAll(async () => {
  harness = await createSyncHarness(17);
  groupCount = harness.sim.simulator.model.groups.size;
  proxy = await startFeedProxy(harness.sim.url, (req, bytes, contentType) => {
    const key = `${req.url}:${calendarBodyHash(bytes, contentType, 'Europe/Berlin')}`;
    if (!firstServed.has(key)) firstServed.set(key, new Date(Date.UTC(2024, 2, 1) + firstServed.size * 1000).toUTCString());
    const lastModified = firstServed.get(key)!;
    // No ETag is ever sent, so none may come back.
    if (req.headers['if-none-match'] !== undefined) answered.withEtag += 1;
    if (req.headers['if-modified-since'] !== undefined) answered.conditional += 1;
    const notModified = req.headers['if-modified-since'] === lastModified;
    if (notModified) answered.notModified += 1;
    else answered.full += 1;
    return { notModified, headers: { 'last-modified': lastModified } };
  });
  service = await harness.service(proxy.url);
});

afterAll(async () => {
  await proxy.close();
  await harness.close();
});

const reset = () => Object.assign(answered, { notModified: 0, full: 0, conditional: 0, withEtag: 0 });

describe('an upstream that sends Last-Modified only', () => {
  it('the first sync asks unconditionally and keeps each feed Last-Modified', async () => {
    reset();
    const { result } = await harness.sync(service);
    expect(result).toMatchObject({ status: 'succeeded', feedsParsed: groupCount });
    expect(answered).toEqual({ notModified: 0, full: groupCount, conditional: 0, withEtag: 0 });
    const rows = (await harness.knex('upstream_bodies').where('source', 'like', 'feed:%').select('etag', 'last_modified')) as { etag: string | null; last_modified: string | null }[];
    expect(rows).toHaveLength(groupCount);
    expect(rows.every((row) => row.etag === null && typeof row.last_modified === 'string' && row.last_modified.endsWith(' GMT'))).toBe(true);
  });

  it('an unchanged re-sync asks with If-Modified-Since, gets a 304 for every feed and changes nothing', async () => {
    reset();
    const { result, changes } = await harness.sync(service);
    expect(answered).toEqual({ notModified: groupCount, full: 0, conditional: groupCount, withEtag: 0 });
    expect(result).toMatchObject({ status: 'succeeded', feedsParsed: 0, feedsUnchanged: groupCount, upstreamUnchanged: true, created: 0, updated: 0, deleted: 0 });
    expect(changes).toEqual([]);
  });

  it('a changed feed answers in full with a later date, is parsed, and its change is found', async () => {
    changeOneFeed(harness);
    reset();
    const { result, changes } = await harness.sync(service);
    expect(answered.full).toBeGreaterThan(0);
    expect(answered.full + answered.notModified).toBe(groupCount);
    expect(result).toMatchObject({ status: 'succeeded', feedsParsed: answered.full });
    expect(changes.length).toBeGreaterThan(0);
  });
});
