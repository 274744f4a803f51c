/**
 * The fence of a run's commit. The advisory lock keeps a second replica's run out only while the lock's session
 * lives; here that session is ended (as an idle timeout of the server or a proxy would end it) while a run is
 * between reading the snapshot and committing, and another replica runs and commits meanwhile. The first run
 * must then commit nothing, so that no change is recorded twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEvent } from '@timetable/contracts';
import { OutboxRelay } from '@timetable/events';
import { captureLogger } from '@timetable/testing';
import { SUPERSEDED_MESSAGE, SyncRunner } from '../src/features/runs/sync-runner.js';
import { SyncRunStore } from '../src/features/runs/sync-run-store.js';
import { UpstreamBodyStore } from '../src/features/runs/upstream-body-store.js';
import { SnapshotStore, type DataWanted, type IndexedEntity } from '../src/features/snapshot/snapshot-store.js';
import { SnapshotVersionStore } from '../src/features/snapshot/snapshot-version.js';
import { StagedEntityStore } from '../src/features/snapshot/staged-entity-store.js';
import { StarplanClient } from '../src/features/upstream-client/starplan-client.js';
import { SYNC_SCHEMA } from '../src/migrations/index.js';
import { changeOneFeed } from './feed-proxy.js';
import { createSyncHarness, type SyncHarness } from './sync-harness.js';

/** A snapshot store that, once armed, holds the run that read the snapshot until it is let go. */
class HeldSnapshotStore extends SnapshotStore {
  private hold: { reached: () => void; release: Promise<void> } | undefined;

  /** Resolves once a run has read the snapshot; `letGo` lets that run go on. */
  arm(): { reached: Promise<void>; letGo: () => void } {
    let reached!: () => void;
    let letGo!: () => void;
    const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
    this.hold = { reached, release: new Promise<void>((resolve) => (letGo = resolve)) };
    return { reached: reachedPromise, letGo };
  }

  override async loadIndex(withData?: readonly DataWanted[]): Promise<Map<string, IndexedEntity>> {
    const index = await super.loadIndex(withData);
    const hold = this.hold;
    if (hold) {
      this.hold = undefined;
      hold.reached();
      await hold.release;
    }
    return index;
  }
}

let harness: SyncHarness;
const { logger } = captureLogger('warn');

beforeAll(async () => {
  harness = await createSyncHarness(13);
});
afterAll(async () => {
  await harness?.close();
});

/** Another replica's runner on the same store, its snapshot reads held when asked. */
function replicaWithHeldReads(): { runner: SyncRunner; snapshots: HeldSnapshotStore } {
  const { knex, bus, sim } = harness;
  const snapshots = new HeldSnapshotStore({ knex });
  const runner = new SyncRunner({
    knex,
    client: new StarplanClient({ baseUrl: sim.url, timeZone: 'Europe/Berlin' }),
    snapshots,
    staged: new StagedEntityStore({ knex }),
    versions: new SnapshotVersionStore({ knex }),
    runs: new SyncRunStore({ knex }),
    bodies: new UpstreamBodyStore({ knex }),
    relay: new OutboxRelay({ knex, schema: SYNC_SCHEMA, bus, logger }),
    logger,
    timeZone: 'Europe/Berlin',
    planningUnit: sim.simulator.model.currentPuId,
  });
  return { runner, snapshots };
}

/** Ends the session that holds the run lock, as the server does to a session idle past its timeout. */
async function endLockSession(): Promise<number> {
  const { rows } = await harness.knex.raw<{ rows: { pid: number }[] }>(
    `select pg_terminate_backend(pid) as ended, pid from pg_locks
      where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())`,
  );
  return rows.length;
}

const changesOf = (syncRunId: string | null) => harness.changes.map((event) => event.value as ChangeEvent).filter((change) => change.syncRunId === syncRunId);

describe('a run whose lock session ended while it ran', () => {
  it('commits nothing once another replica has committed meanwhile, and no change is recorded twice', async () => {
    const first = await harness.sync();
    expect(first.result.status).toBe('succeeded');
    changeOneFeed(harness);

    const replica = replicaWithHeldReads();
    const held = replica.snapshots.arm();
    const stale = replica.runner.runOnce();
    await held.reached;
    expect(await endLockSession()).toBe(1);

    // The lock is free, so the other replica runs, and records the change.
    const meanwhile = await harness.sync();
    expect(meanwhile.result.status).toBe('succeeded');
    expect(meanwhile.changes.length).toBeGreaterThan(0);

    // The held run read the snapshot before that commit and would record the same change again.
    held.letGo();
    const result = await stale;
    expect(result.status).toBe('failed');
    expect(result.errors.map((error) => error.errorMessage)).toEqual([SUPERSEDED_MESSAGE]);
    const { relay } = await harness.service();
    await relay.drain();
    expect(changesOf(result.syncRunId)).toEqual([]);
    const keys = harness.changes.map((event) => event.value as ChangeEvent).map((change) => `${change.entityType}:${change.entityId}:${change.syncRunId}`);
    expect(new Set(keys).size).toBe(keys.length);

    // The snapshot is the one the other replica committed: the next run finds nothing to change.
    const after = await harness.sync();
    expect(after.result).toMatchObject({ status: 'succeeded', created: 0, updated: 0, deleted: 0 });
  });
});

describe('the snapshot version', () => {
  it('lets only one of two commits that read the same version advance it; the second waits for the first, then is refused', async () => {
    const versions = new SnapshotVersionStore({ knex: harness.knex });
    const read = await versions.current();
    let firstCommit!: () => void;
    const firstHolds = new Promise<void>((resolve) => (firstCommit = resolve));
    const first = harness.knex.transaction(async (trx) => {
      const advanced = await versions.advance(trx, read);
      await firstHolds;
      return advanced;
    });
    await expect.poll(async () => (await harness.knex('snapshot_version').forUpdate().noWait().first().then(() => 'free', () => 'locked'))).toBe('locked');
    const second = harness.knex.transaction((trx) => versions.advance(trx, read));
    firstCommit();
    expect(await first).toBe(true);
    expect(await second).toBe(false);
    expect(await versions.current()).toBe(String(BigInt(read) + 1n));
  });
});
