/**
 * StarPlan sends no ETag or Last-Modified, so sync learns that a feed did not change from its body hash. An
 * upstream that does send validators is asked conditionally, and its 304 costs no download at all. The
 * upstream here is the simulator behind a proxy that adds an ETag to every feed (the feed's content hash,
 * which leaves out the lines StarPlan rewrites on every export) and answers If-None-Match with 304.
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
const answered = { notModified: 0, full: 0, conditional: 0 };

beforeAll(async () => {
  harness = await createSyncHarness(13);
  groupCount = harness.sim.simulator.model.groups.size;
  proxy = await startFeedProxy(harness.sim.url, (req, bytes, contentType) => {
    const etag = `"${calendarBodyHash(bytes, contentType, 'Europe/Berlin')}"`;
    if (req.headers['if-none-match'] !== undefined) answered.conditional += 1;
    const notModified = req.headers['if-none-match'] === etag;
    if (notModified) answered.notModified += 1;
    else answered.full += 1;
    return { notModified, headers: { etag } };
  });
  service = await harness.service(proxy.url);
});

afterAll(async () => {
  await proxy.close();
  await harness.close();
});

const reset = () => Object.assign(answered, { notModified: 0, full: 0, conditional: 0 });

describe('an upstream that sends validators', () => {
  it('the first sync asks unconditionally and keeps each feed ETag', async () => {
    reset();
    const { result } = await harness.sync(service);
    expect(result).toMatchObject({ status: 'succeeded', feedsParsed: groupCount });
    expect(answered).toEqual({ notModified: 0, full: groupCount, conditional: 0 });
    const etags = (await harness.knex('upstream_bodies').where('source', 'like', 'feed:%').pluck('etag')) as (string | null)[];
    expect(etags).toHaveLength(groupCount);
    expect(etags.every((etag) => typeof etag === 'string' && etag.startsWith('"'))).toBe(true);
  });

  it('an unchanged re-sync gets a 304 for every feed and changes nothing', async () => {
    reset();
    const { result, changes } = await harness.sync(service);
    expect(answered).toEqual({ notModified: groupCount, full: 0, conditional: groupCount });
    expect(result).toMatchObject({ status: 'succeeded', feedsParsed: 0, feedsUnchanged: groupCount, upstreamUnchanged: true, created: 0, updated: 0, deleted: 0 });
    expect(changes).toEqual([]);
  });

  it('a changed feed answers in full, is parsed, and its change is found', async () => {
    changeOneFeed(harness);
    reset();
    const { result, changes } = await harness.sync(service);
    expect(answered.full).toBeGreaterThan(0);
    expect(answered.full + answered.notModified).toBe(groupCount);
    expect(result).toMatchObject({ status: 'succeeded', feedsParsed: answered.full });
    expect(changes.length).toBeGreaterThan(0);
  });
});
