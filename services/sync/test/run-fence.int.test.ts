/**
 * The fence of a run's commits. The advisory lock keeps a second replica's run out only while the lock's session
 * lives; here that session is ended (as an idle timeout of the server or a proxy would end it) while a run is
 * held, and another replica runs and commits meanwhile. The held run must then commit nothing: neither changes
 * that would be recorded twice, nor a record of a run that changed nothing naming answers the snapshot was not
 * built from.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEvent } from '@timetable/contracts';
import { OutboxRelay } from '@timetable/events';
import { captureLogger } from '@timetable/testing';
import { syncRunsSuperseded } from '../src/features/runs/metrics.js';
import { SUPERSEDED_MESSAGE } from '../src/features/runs/run-result.js';
import { SyncRunner } from '../src/features/runs/sync-runner.js';
import { SyncRunStore, type SyncRunRecord } from '../src/features/write/sync-run-store.js';
import { UpstreamBodyStore } from '../src/features/write/upstream-body-store.js';
import type { IndexedEntity } from '../src/features/diff/diff-snapshots.js';
import { SnapshotStore, type DataWanted } from '../src/features/write/snapshot-store.js';
import { StagedEntityStore } from '../src/features/write/staged-entity-store.js';
import { StarplanClient } from '../src/features/read/starplan-client.js';
import { SYNC_SCHEMA } from '../src/migrations/index.js';
import { changeOneFeed } from './feed-proxy.js';
import { createSyncHarness, type SyncHarness } from './sync-harness.js';

/** Holds the run that reaches it until let go; `reached` resolves when one has. */
class Hold {
  private reachedBy: (() => void) | undefined;
  readonly reached = new Promise<void>((resolve) => (this.reachedBy = resolve));
  private letGoOf: (() => void) | undefined;
  private readonly released = new Promise<void>((resolve) => (this.letGoOf = resolve));

  async pass(): Promise<void> {
    this.reachedBy?.();
    await this.released;
  }

  letGo(): void {
    this.letGoOf?.();
  }
}

/** Holds the run once it has read the snapshot it diffs against. */
class HeldSnapshotStore extends SnapshotStore {
  hold: Hold | undefined;

  override async loadIndex(withData?: readonly DataWanted[]): Promise<Map<string, IndexedEntity>> {
    const index = await super.loadIndex(withData);
    await this.hold?.pass();
    return index;
  }
}

/** Holds the run once it has read the last committed run and the snapshot's version. */
class HeldRunStore extends SyncRunStore {
  hold: Hold | undefined;

  override async lastCommitted(): Promise<{ run: SyncRunRecord | undefined; snapshotVersion: string }> {
    const read = await super.lastCommitted();
    await this.hold?.pass();
    return read;
  }
}

let harness: SyncHarness;
const { logger } = captureLogger('warn');

beforeAll(async () => {
  harness = await createSyncHarness(13);
  expect((await harness.sync()).result.status).toBe('succeeded');
});
afterAll(async () => {
  await harness?.close();
});

/** Another replica's runner on the same store, held where the test says. */
function replica(holds: { afterSnapshotRead?: Hold; afterRunRead?: Hold }): SyncRunner {
  const { knex, bus, sim } = harness;
  const snapshots = Object.assign(new HeldSnapshotStore({ knex }), { hold: holds.afterSnapshotRead });
  const runs = Object.assign(new HeldRunStore({ knex }), { hold: holds.afterRunRead });
  return new SyncRunner({
    knex,
    client: new StarplanClient({ baseUrl: sim.url, timeZone: 'Europe/Berlin' }),
    snapshots,
    staged: new StagedEntityStore({ knex }),
    runs,
    bodies: new UpstreamBodyStore({ knex }),
    relay: new OutboxRelay({ knex, schema: SYNC_SCHEMA, bus, logger }),
    logger,
    timeZone: 'Europe/Berlin',
    planningUnit: sim.simulator.model.currentPuId,
  });
}

/** Ends the session that holds the run lock, as the server does to a session idle past its timeout, and waits until it has. */
async function endLockSession(): Promise<number> {
  const { rows } = await harness.knex.raw<{ rows: { ended: boolean }[] }>(
    `select pg_terminate_backend(pid, 5000) as ended from pg_locks
      where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())
        and objsubid = 1 and objid::bigint = (hashtext('timetable-sync-run')::bigint & 4294967295)`,
  );
  return rows.filter((row) => row.ended).length;
}

const superseded = async () => (await syncRunsSuperseded.get()).values[0]?.value ?? 0;

async function publishedChanges(): Promise<ChangeEvent[]> {
  await (await harness.service()).relay.drain();
  return harness.changes.map((event) => event.value as ChangeEvent);
}

/** The same change (entity, action and data) recorded more than once. */
function repeated(changes: readonly ChangeEvent[]): string[] {
  const seen = new Set<string>();
  const twice: string[] = [];
  for (const change of changes) {
    const key = JSON.stringify([change.entityType, change.entityId, change.action, change.previousData, change.newData]);
    if (seen.has(key)) twice.push(key);
    seen.add(key);
  }
  return twice;
}

describe('a run whose lock session ended while it ran', () => {
  it('commits no change once another replica has committed meanwhile, and no change is recorded twice', async () => {
    const before = (await publishedChanges()).length;
    const supersededBefore = await superseded();
    changeOneFeed(harness);
    const afterSnapshotRead = new Hold();
    const stale = replica({ afterSnapshotRead }).runOnce();
    await afterSnapshotRead.reached;
    expect(await endLockSession()).toBe(1);

    // The lock is free, so the other replica runs, and records the change.
    const meanwhile = await harness.sync();
    expect(meanwhile.result.status).toBe('succeeded');
    expect(meanwhile.changes.length).toBeGreaterThan(0);

    // The held run read the snapshot before that commit and would record the same change again.
    afterSnapshotRead.letGo();
    const result = await stale;
    expect(result.status).toBe('failed');
    expect(result.errors.map((error) => error.errorMessage)).toEqual([SUPERSEDED_MESSAGE]);
    const changes = (await publishedChanges()).slice(before);
    expect(changes.filter((change) => change.syncRunId === result.syncRunId)).toEqual([]);
    expect(repeated(changes)).toEqual([]);
    expect(await superseded()).toBe(supersededBefore + 1);

    // The snapshot is the one the other replica committed: the next run finds nothing to change.
    const after = await harness.sync();
    expect(after.result).toMatchObject({ status: 'succeeded', created: 0, updated: 0, deleted: 0 });
  });

  it('records no unchanged run once another replica has committed meanwhile, so a change undone upstream is still found', async () => {
    const { simulator } = harness.sim;
    const room = [...simulator.model.rooms.values()][0]!;
    const originalName = room.name;
    const supersededBefore = await superseded();
    const afterRunRead = new Hold();
    const stale = replica({ afterRunRead }).runOnce();
    await afterRunRead.reached;
    expect(await endLockSession()).toBe(1);

    // Another replica records a renamed room; then the upstream names it as before.
    simulator.renameRoom({ roomId: room.id, name: `${originalName} (renamed)` });
    const meanwhile = await harness.sync();
    const renamed = meanwhile.changes.filter((change) => change.entityType === 'room');
    expect(renamed.map((change) => change.action)).toEqual(['updated']);
    simulator.renameRoom({ roomId: room.id, name: originalName });

    // The held run compares the upstream with the run before the rename, and finds it as that run read it;
    // its record would name those answers as the snapshot's, which holds the rename.
    afterRunRead.letGo();
    const result = await stale;
    expect(result.status).toBe('failed');
    expect(result.errors.map((error) => error.errorMessage)).toEqual([SUPERSEDED_MESSAGE]);
    expect(await superseded()).toBe(supersededBefore + 1);

    const undone = await harness.sync();
    expect(undone.result.status).toBe('succeeded');
    const restored = undone.changes.filter((change) => change.entityType === 'room');
    expect(restored.map((change) => [change.entityId, change.newData])).toEqual([[renamed[0]!.entityId, renamed[0]!.previousData]]);
  });
});

describe('the snapshot version', () => {
  it('lets only one of two commits that read the same version advance it; the second waits for the first, then is refused', async () => {
    const runs = new SyncRunStore({ knex: harness.knex });
    const { snapshotVersion: read } = await runs.lastCommitted();
    let firstCommit!: () => void;
    const firstHolds = new Promise<void>((resolve) => (firstCommit = resolve));
    const first = harness.knex.transaction(async (trx) => {
      const advanced = await runs.advanceSnapshot(trx, read);
      await firstHolds;
      return advanced;
    });
    await expect.poll(snapshotVersionRow).toBe('locked');
    const second = harness.knex.transaction((trx) => runs.advanceSnapshot(trx, read));
    // The second must be waiting for the first's row lock before the first commits.
    await expect.poll(() => lockWaiters()).toBe(1);
    firstCommit();
    expect(await first).toBe(true);
    expect(await second).toBe(false);
    expect((await runs.lastCommitted()).snapshotVersion).toBe(String(BigInt(read) + 1n));
  });
});

describe('the record of a run that changed nothing', () => {
  it('waits for a commit in progress: refused once it committed, written once it rolled back', async () => {
    const runs = new SyncRunStore({ knex: harness.knex });
    for (const outcome of ['commit', 'rollback'] as const) {
      const { snapshotVersion: read } = await runs.lastCommitted();
      let end!: () => void;
      const ends = new Promise<void>((resolve) => (end = resolve));
      const building = harness.knex.transaction(async (trx) => {
        await runs.advanceSnapshot(trx, read);
        await ends;
        if (outcome === 'rollback') throw new Error('rolled back');
      });
      await expect.poll(snapshotVersionRow).toBe('locked');
      const unchanged = runAt(read, new Date(), `fingerprint before the ${outcome}`);
      const recorded = runs.recordIfSnapshotAt(harness.knex, unchanged, read);
      await expect.poll(() => lockWaiters()).toBe(1);
      end();
      await building.catch(() => undefined);
      expect(await recorded).toBe(outcome === 'rollback');
      expect((await harness.knex('sync_runs').where({ id: unchanged.id })).length).toBe(outcome === 'rollback' ? 1 : 0);
    }
  });

  it('does not count as the last committed run over a later version, whatever its clock says', async () => {
    const runs = new SyncRunStore({ knex: harness.knex });
    const { snapshotVersion: read } = await runs.lastCommitted();
    // An unchanged run recorded at the version, its clock an hour ahead; then a run that wrote changes.
    const unchanged = runAt(read, new Date(Date.now() + 3_600_000), 'the older answers');
    expect(await runs.recordIfSnapshotAt(harness.knex, unchanged, read)).toBe(true);
    const next = String(BigInt(read) + 1n);
    const building = runAt(next, new Date(), 'the answers the snapshot is built from');
    await harness.knex.transaction(async (trx) => {
      expect(await runs.advanceSnapshot(trx, read)).toBe(true);
      await runs.record(trx, building, []);
    });
    expect(await runs.lastCommitted()).toMatchObject({ run: { id: building.id, upstreamFingerprint: building.upstreamFingerprint }, snapshotVersion: next });
  });
});

/** A run record as a run would write it. */
function runAt(snapshotVersion: string, finishedAt: Date, upstreamFingerprint: string): SyncRunRecord {
  return {
    id: randomUUID(), startedAt: finishedAt, finishedAt, planningUnitId: 1, status: 'succeeded',
    created: 0, updated: 0, deleted: 0, entityCount: 0, errorMessage: null, upstreamFingerprint, snapshotVersion,
  };
}

/** Whether a transaction holds the snapshot_version row's lock: 'locked' or 'free'. */
function snapshotVersionRow(): Promise<'free' | 'locked'> {
  return harness.knex('snapshot_version').forUpdate().noWait().first().then(() => 'free' as const, () => 'locked' as const);
}

/** Sessions of this database waiting for a lock on snapshot_version. */
async function lockWaiters(): Promise<number> {
  const { rows } = await harness.knex.raw<{ rows: unknown[] }>(
    `select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like '%snapshot_version%'`,
  );
  return rows.length;
}
