/** Re-syncs skip what did not change: unchanged feeds are not parsed, and a run that did not commit records nothing. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { courseIdOf, roomIdOf, semesterIdOf } from '../src/testing/index.js';
import { syncEntitiesSeen } from '../src/features/runs/metrics.js';
import { calendarBodyHash } from '../src/features/read/body-hash.js';
import type { SyncService } from '../src/create-sync-service.js';
import { createSyncHarness, lectureOfOneGroup, type SyncHarness } from './sync-harness.js';

let harness: SyncHarness;
let groupCount: number;

beforeAll(async () => {
  harness = await createSyncHarness(11);
  groupCount = harness.sim.simulator.model.groups.size;
});
afterAll(async () => {
  await harness.close();
});

const storedBodies = async () =>
  (await harness.knex('upstream_bodies').select('source', 'body_hash', 'derivation').orderBy('source')) as { source: string; body_hash: string }[];

describe('what a re-sync reads again', () => {
  it('the first sync parses every feed and records a hash of every answer', async () => {
    const { result } = await harness.sync();
    expect(result).toMatchObject({ status: 'succeeded', feedsParsed: groupCount, feedsUnchanged: 0, upstreamUnchanged: false });
    const sources = (await storedBodies()).map((row) => row.source);
    expect(sources.filter((source) => source.startsWith('feed:'))).toHaveLength(groupCount);
    expect(sources).toContain('json?m=getpus');
  });

  it('StarPlan exports the same feed with new UIDs and DTSTAMPs; its hash leaves them out', async () => {
    const { model } = harness.sim.simulator;
    const url = `${harness.sim.url}/ical?lan=de&puid=${model.currentPuId}&type=pg&pgid=${[...model.groups.keys()][0]}`;
    const read = async () => {
      const response = await fetch(url);
      return { bytes: new Uint8Array(await response.arrayBuffer()), contentType: response.headers.get('content-type') };
    };
    const [first, second] = [await read(), await read()];
    expect(Buffer.from(first.bytes).equals(Buffer.from(second.bytes))).toBe(false);
    expect(calendarBodyHash(first.bytes, first.contentType, 'Europe/Berlin')).toBe(calendarBodyHash(second.bytes, second.contentType, 'Europe/Berlin'));
  });

  it('an unchanged upstream: no feed is parsed, no change emitted, nothing rewritten', async () => {
    const before = await storedBodies();
    const { result, changes } = await harness.sync();
    expect(result).toMatchObject({ status: 'succeeded', created: 0, updated: 0, deleted: 0, feedsParsed: 0, feedsUnchanged: groupCount, upstreamUnchanged: true });
    expect(changes).toEqual([]);
    expect(await storedBodies()).toEqual(before);
    const runs = await harness.knex('sync_runs').orderBy('finished_at', 'desc').limit(2);
    expect(runs[0].upstream_fingerprint).toEqual(expect.any(String));
    expect(runs[0].upstream_fingerprint).toBe(runs[1].upstream_fingerprint);
    expect(runs[0].entity_count).toBe(runs[1].entity_count);
  });

  it('an unchanged run reads no feed derivation; it counts the snapshot for the gauges only where this process has not', async () => {
    const gauges = async () => Object.fromEntries((await syncEntitiesSeen.get()).values.map(({ labels, value }) => [labels.entity_type, value]));
    const stored = async () =>
      Object.fromEntries(
        ((await harness.knex('snapshot_entities').select('entity_type').count({ count: '*' }).groupBy('entity_type')) as { entity_type: string; count: number }[]).map(
          (row) => [row.entity_type, Number(row.count)],
        ),
      );
    /** An unchanged run of `service`: the statements it ran that count the snapshot, after checking it read no derivation. */
    const unchangedRun = async (service: SyncService) => {
      const statements: string[] = [];
      const record = (query: { sql: string }) => void statements.push(query.sql);
      harness.knex.on('query', record);
      try {
        expect((await harness.sync(service)).result.upstreamUnchanged).toBe(true);
      } finally {
        harness.knex.off('query', record);
      }
      expect(statements.length).toBeGreaterThan(0);
      expect(statements.filter((sql) => sql.includes('derivation'))).toEqual([]);
      return statements.filter((sql) => /count\(\*\)/i.test(sql) && sql.includes('snapshot_entities'));
    };
    // A restarted process has no gauges: its first unchanged run counts the stored snapshot.
    syncEntitiesSeen.reset();
    const restarted = await harness.service();
    expect(await unchangedRun(restarted)).toHaveLength(1);
    expect(await gauges()).toMatchObject(await stored());
    // Its next one finds the gauges set for this very snapshot and leaves them.
    expect(await unchangedRun(restarted)).toEqual([]);
    expect(await gauges()).toMatchObject(await stored());
    // Another replica commits a change: this process's gauges are then not of the stored snapshot, so its next
    // unchanged run counts again.
    harness.sim.simulator.cancelOccurrence({ occurrenceId: lectureOfOneGroup(harness).occurrence.id });
    expect((await harness.sync(await harness.service())).result).toMatchObject({ status: 'succeeded', upstreamUnchanged: false });
    syncEntitiesSeen.reset();
    expect(await unchangedRun(restarted)).toHaveLength(1);
    expect(await gauges()).toMatchObject(await stored());
  });

  it('a change in one feed: only that feed is parsed, and its change is found as before', async () => {
    const { lectureId, pgid, occurrence } = lectureOfOneGroup(harness);
    harness.sim.simulator.cancelOccurrence({ occurrenceId: occurrence.id });
    const listsBefore = (await storedBodies()).filter((row) => !row.source.startsWith('feed:'));
    const { result, changes } = await harness.sync();
    // The lists answered as before: their rows stay as they were (none written, none removed).
    expect(listsBefore.length).toBeGreaterThan(0);
    expect((await storedBodies()).filter((row) => !row.source.startsWith('feed:'))).toEqual(listsBefore);
    expect(result).toMatchObject({ status: 'succeeded', feedsParsed: 1, feedsUnchanged: groupCount - 1, upstreamUnchanged: false });
    expect(changes.length).toBeGreaterThan(0);
    expect(changes.every((change) => change.entityType === 'event' && change.courseId === courseIdOf(lectureId) && change.semesterId === semesterIdOf(pgid))).toBe(true);
    const again = await harness.sync();
    expect(again.result).toMatchObject({ upstreamUnchanged: true, feedsParsed: 0 });
    expect(again.changes).toEqual([]);
  });

  it('a renamed room: the room list and the feeds naming it change, and every event in it follows', async () => {
    const events = await harness.snapshot('event');
    const roomId = (events.find((row) => (row.data.roomIds as string[]).length === 1)!.data.roomIds as string[])[0]!;
    const room = [...harness.sim.simulator.model.rooms.values()].find((candidate) => roomIdOf(candidate.id) === roomId)!;
    harness.sim.simulator.renameRoom({ roomId: room.id, shortname: `${room.shortname}-neu` });
    const affected = events.filter((row) => (row.data.roomIds as string[]).includes(roomId)).map((row) => row.entity_id).sort();
    const listsBefore = new Map((await storedBodies()).filter((row) => !row.source.startsWith('feed:')).map((row) => [row.source, row.body_hash]));
    const { result, changes } = await harness.sync();
    expect(result.feedsParsed).toBeGreaterThan(0);
    expect(result.feedsParsed).toBeLessThan(groupCount);
    // Every list keeps its row; only the room list that changed has a new hash.
    const listsAfter = new Map((await storedBodies()).filter((row) => !row.source.startsWith('feed:')).map((row) => [row.source, row.body_hash]));
    expect([...listsAfter.keys()]).toEqual([...listsBefore.keys()]);
    expect([...listsAfter].filter(([source, hash]) => listsBefore.get(source) !== hash).map(([source]) => source)).toEqual([`json?m=getros&loc=${room.locationId}`]);
    expect(changes.filter((change) => change.entityType === 'event').map((change) => change.entityId).sort()).toEqual(affected);
  });
});

describe('a run that does not commit', () => {
  it('records no hash, so the next run still finds the change', async () => {
    const { lectureId, occurrence } = lectureOfOneGroup(harness);
    harness.sim.simulator.cancelOccurrence({ occurrenceId: occurrence.id });
    const before = await storedBodies();
    // The run fails inside its transaction, after the snapshot, the hashes and the outbox rows were written.
    await harness.knex.raw(`
      create function sync.refuse_committed_run() returns trigger language plpgsql as $$
      begin
        if new.status <> 'failed' then raise exception 'refused by the test'; end if;
        return new;
      end $$;
      create trigger refuse_committed_run before insert on sync.sync_runs for each row execute function sync.refuse_committed_run();
    `);
    try {
      const { result, changes } = await harness.sync();
      expect(result.status).toBe('failed');
      expect(changes).toEqual([]);
    } finally {
      await harness.knex.raw('drop trigger refuse_committed_run on sync.sync_runs; drop function sync.refuse_committed_run();');
    }
    expect(await storedBodies()).toEqual(before);
    const { result, changes } = await harness.sync();
    expect(result).toMatchObject({ status: 'succeeded', feedsParsed: 1, upstreamUnchanged: false });
    expect(changes.length).toBeGreaterThan(0);
    expect(changes.every((change) => change.courseId === courseIdOf(lectureId))).toBe(true);
  });

  it('a partial run keeps the failed feed\'s old record, so the next run parses it and finds the change', async () => {
    const { lectureId, pgid, occurrence } = lectureOfOneGroup(harness);
    harness.sim.simulator.cancelOccurrence({ occurrenceId: occurrence.id });
    harness.sim.simulator.misbehave('ical', { failure: 'error' });
    const partial = await harness.sync();
    harness.sim.simulator.clearMisbehaviour();
    expect(partial.result.status).toBe('partial');
    expect(partial.changes.filter((change) => change.entityType === 'event')).toEqual([]);
    const record = (await storedBodies()).find((row) => row.source === `feed:${pgid}`);
    expect(record).toBeDefined();
    const recovered = await harness.sync();
    expect(recovered.result).toMatchObject({ status: 'succeeded', upstreamUnchanged: false });
    expect(recovered.result.feedsParsed).toBeGreaterThanOrEqual(1);
    expect(recovered.changes.some((change) => change.entityType === 'event' && change.courseId === courseIdOf(lectureId))).toBe(true);
    const settled = await harness.sync();
    expect(settled.result).toMatchObject({ upstreamUnchanged: true });
    expect(settled.changes).toEqual([]);
  });
});
