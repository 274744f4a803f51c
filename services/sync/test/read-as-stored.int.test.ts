/**
 * A run after a complete one first reads every answer that run read, hashing only, and reads the upstream
 * as usual only once an answer differs or fails. Whichever way a run goes, each request is made once with its
 * retries: the usual read takes what the first one received. The upstream here is the simulator behind a
 * proxy that counts the requests and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { courseIdOf, semesterIdOf } from '../src/testing/index.js';
import type { SyncService } from '../src/create-sync-service.js';
import { syncStoredAnswerChecks } from '../src/features/runs/metrics.js';
import { syncListsDecoded } from '../src/features/read/metrics.js';
import { groupCalendarRequest } from '../src/features/read/starplan-client.js';
import { startFeedProxy, type FeedProxy } from './feed-proxy.js';
import { createSyncHarness, lectureOfOneGroup, type SyncHarness } from './sync-harness.js';

let harness: SyncHarness;
let proxy: FeedProxy;
let service: SyncService;
let groupCount: number;
const asked: string[] = [];

beforeAll(async () => {
  harness = await createSyncHarness(17);
  groupCount = harness.sim.simulator.model.groups.size;
  proxy = await startFeedProxy(harness.sim.url, () => ({ notModified: false, headers: {} }), (request) => asked.push(request));
  service = await harness.service(proxy.url);
  expect((await harness.sync(service)).result).toMatchObject({ status: 'succeeded', feedsParsed: groupCount });
});

afterAll(async () => {
  await proxy.close();
  await harness.close();
});

/** Every request the last complete run made, as stored. */
async function storedRequests(): Promise<string[]> {
  const pu = harness.sim.simulator.model.currentPuId;
  const sources = (await harness.knex('upstream_bodies').pluck('source')) as string[];
  return sources.map((source) => (source.startsWith('feed:') ? groupCalendarRequest(pu, Number(source.slice('feed:'.length))) : source)).sort();
}

const storedAnswerChecks = async () =>
  Object.fromEntries((await syncStoredAnswerChecks.get()).values.map(({ labels, value }) => [String(labels.outcome), value]));

/**
 * A run of `target`, the requests it made, sorted, and how its first read of the stored answers ended
 * (`unchanged`: the run ended there; `changed`: the usual read followed; neither: there was none).
 */
async function syncCounting(target = service) {
  asked.length = 0;
  const checksBefore = await storedAnswerChecks();
  const run = await harness.sync(target);
  const checksAfter = await storedAnswerChecks();
  const firstRead = ['unchanged', 'changed'].filter((outcome) => (checksAfter[outcome] ?? 0) > (checksBefore[outcome] ?? 0));
  return { ...run, requests: [...asked].sort(), firstRead: firstRead.join() || 'none' };
}

describe('a run after a complete one', () => {
  it('in a process started afresh, finds the upstream unchanged asking for each stored answer once, decoding the planning units alone', async () => {
    const before = await storedRequests();
    const decoded = async () => (await syncListsDecoded.get()).values[0]?.value ?? 0;
    const decodedBefore = await decoded();
    const { result, changes, requests, firstRead } = await syncCounting(await harness.service(proxy.url));
    expect(firstRead).toBe('unchanged');
    expect(result).toMatchObject({ status: 'succeeded', upstreamUnchanged: true, feedsParsed: 0, feedsUnchanged: groupCount, created: 0, updated: 0, deleted: 0 });
    expect(changes).toEqual([]);
    expect(requests).toEqual(before);
    expect(before.filter((request) => request.startsWith('json?')).length).toBeGreaterThan(10);
    expect((await decoded()) - decodedBefore).toBe(1);
  });

  it('with one feed changed, asks for every answer once and parses that feed alone', async () => {
    const { lectureId, pgid, occurrence } = lectureOfOneGroup(harness);
    harness.sim.simulator.cancelOccurrence({ occurrenceId: occurrence.id });
    const before = await storedRequests();
    const { result, changes, requests, firstRead } = await syncCounting();
    expect(firstRead).toBe('changed');
    expect(result).toMatchObject({ status: 'succeeded', upstreamUnchanged: false, feedsParsed: 1, feedsUnchanged: groupCount - 1 });
    expect(changes.length).toBeGreaterThan(0);
    expect(changes.every((change) => change.courseId === courseIdOf(lectureId) && change.semesterId === semesterIdOf(pgid))).toBe(true);
    expect(requests).toEqual(before);
  });

  it('with a room renamed (a list and the feeds naming the room), asks for every answer once', async () => {
    const room = [...harness.sim.simulator.model.rooms.values()][0]!;
    harness.sim.simulator.renameRoom({ roomId: room.id, shortname: `${room.shortname}-neu` });
    const before = await storedRequests();
    const { result, changes, requests, firstRead } = await syncCounting();
    expect(firstRead).toBe('changed');
    expect(result).toMatchObject({ status: 'succeeded', upstreamUnchanged: false });
    expect(changes.some((change) => change.entityType === 'room')).toBe(true);
    expect(requests).toEqual(before);
  });

  it('with a list answered truncated once, asks for it again once, as a read decoding it on arrival would, and finds nothing changed', async () => {
    harness.sim.simulator.misbehave('getlocs', { failure: 'truncate', times: 1 });
    const before = await storedRequests();
    const { result, changes, requests, firstRead } = await syncCounting();
    expect(firstRead).toBe('changed');
    expect(result).toMatchObject({ status: 'succeeded', upstreamUnchanged: true });
    expect(changes).toEqual([]);
    expect(requests).toEqual([...before, 'json?m=getlocs'].sort());
  });

  it('with every feed failing, makes each feed request with its retries once, and keeps every pair as it was', async () => {
    harness.sim.simulator.misbehave('ical', { failure: 'http500' });
    const before = await storedRequests();
    let failed: Awaited<ReturnType<typeof syncCounting>>;
    try {
      failed = await syncCounting();
    } finally {
      harness.sim.simulator.clearMisbehaviour('ical');
    }
    const { result, changes, requests, firstRead } = failed;
    expect(firstRead).toBe('changed');
    expect(result.status).toBe('partial');
    expect(result.errors).toHaveLength(groupCount);
    expect(changes).toEqual([]);
    // A first attempt and the default policy's two retries.
    const attempts = 3;
    const lists = before.filter((request) => request.startsWith('json?'));
    const feeds = before.filter((request) => request.startsWith('ical?'));
    expect(requests).toEqual([...lists, ...feeds.flatMap((request) => Array<string>(attempts).fill(request))].sort());
    // After a partial run the stored answers are not all of one complete run: no first read.
    const recovered = await syncCounting();
    expect(recovered.firstRead).toBe('none');
    expect(recovered.result).toMatchObject({ status: 'succeeded' });
  });

  it('whose fingerprint is another (as after raising DERIVATION_VERSION or READ_VERSION), reads and builds as usual although every answer is as stored', async () => {
    const latest = await harness.knex('sync_runs').orderBy('finished_at', 'desc').first('id');
    await harness.knex('sync_runs').where({ id: latest.id }).update({ upstream_fingerprint: 'of another version' });
    const before = await storedRequests();
    const { result, changes, requests, firstRead } = await syncCounting();
    expect(firstRead).toBe('changed');
    expect(result).toMatchObject({ status: 'succeeded', upstreamUnchanged: false, created: 0, updated: 0, deleted: 0 });
    expect(changes).toEqual([]);
    expect(requests).toEqual(before);
    expect((await syncCounting()).firstRead).toBe('unchanged');
  });

  it('with list rows missing from the store (as an earlier version left them), puts them back in an unchanged run', async () => {
    const lists = (await harness.knex('upstream_bodies').whereNot('source', 'like', 'feed:%').orderBy('source').select('source', 'body_hash')) as { source: string }[];
    const lost = lists.filter((row) => row.source.startsWith('json?m=getPgsExt')).map((row) => row.source);
    expect(lost.length).toBeGreaterThan(0);
    await harness.knex('upstream_bodies').whereIn('source', lost).delete();
    const { result, requests, firstRead } = await syncCounting();
    expect(firstRead).toBe('changed');
    expect(result).toMatchObject({ status: 'succeeded', upstreamUnchanged: true });
    expect(requests).toEqual(await storedRequests());
    expect(await harness.knex('upstream_bodies').whereNot('source', 'like', 'feed:%').orderBy('source').select('source', 'body_hash')).toEqual(lists);
    expect((await syncCounting()).firstRead).toBe('unchanged');
  });
});
