/**
 * The commit of a run that built a snapshot: its changes, the stored answers and feed records, and the run's
 * record, in one transaction fenced on the snapshot version the run began from.
 */
import type { Knex } from '@timetable/db';
import type { IndexedEntity } from '../diff/diff-snapshots.js';
import { feedRecordChanges, type FeedRecord } from '../diff/feed-records.js';
import type { NextSnapshot } from '../diff/next-snapshot.js';
import type { UpstreamSnapshot } from '../read/upstream-snapshot.js';
import type { SnapshotStore } from '../write/snapshot-store.js';
import type { StagedEntityStore } from '../write/staged-entity-store.js';
import type { PairError, SyncRunStatus, SyncRunStore } from '../write/sync-run-store.js';
import type { StoredHashes, UpstreamBodyStore } from '../write/upstream-body-store.js';
import { writeChanges, type ChangeTally } from '../write/write-changes.js';
import { pairErrorOf, runRecord, SupersededRunError } from './run-result.js';
import { fingerprintOf, listRowChanges } from './stored-answers.js';

export interface ChangesCommitDeps {
  knex: Knex;
  snapshots: SnapshotStore;
  staged: StagedEntityStore;
  runs: SyncRunStore;
  bodies: UpstreamBodyStore;
}

export interface BuiltRun {
  id: string;
  startedAt: Date;
  finishedAt: Date;
  /** The snapshot version the run began from: the commit is fenced on it. */
  snapshotVersion: string;
  upstream: UpstreamSnapshot;
  stored: StoredHashes;
  snapshot: NextSnapshot;
  previous: ReadonlyMap<string, IndexedEntity>;
  /** pgid -> the stored feed record, as the run read it when it began building. */
  storedFeeds: ReadonlyMap<number, FeedRecord>;
}

export interface CommittedChanges {
  tally: ChangeTally;
  errors: PairError[];
  status: SyncRunStatus;
  /** Null unless the run read and committed every answer. */
  fingerprint: string | null;
}

export function commitChanges(deps: ChangesCommitDeps, built: BuiltRun): Promise<CommittedChanges> {
  const { knex, snapshots, staged, runs, bodies } = deps;
  const { id, startedAt, finishedAt, snapshotVersion, upstream, stored, snapshot, previous, storedFeeds } = built;
  return knex.transaction(async (trx) => {
    // The fence: the lock kept other runs out only while its session lived.
    if (!(await runs.advanceSnapshot(trx, snapshotVersion))) throw new SupersededRunError();
    const { tally, rejected } = await writeChanges(trx, { snapshots, staged }, { previous, next: snapshot.entities, syncRunId: id, now: finishedAt });
    const errors = [...snapshot.failures.map((failure) => pairErrorOf(failure, finishedAt)), ...rejected];
    const status: SyncRunStatus = errors.length > 0 ? 'partial' : 'succeeded';
    const fingerprint = status === 'succeeded' ? fingerprintOf(upstream.bodies) : null;
    const feedRecords = feedRecordChanges(snapshot, storedFeeds, previous);
    await bodies.apply(trx, { ...listRowChanges(upstream.bodies, stored, status), feedUpserts: feedRecords.upserts, feedDeletes: feedRecords.deletes }, finishedAt);
    const planningUnitId = upstream.planningUnit.id;
    const entityCount = snapshot.entities.size;
    const left = String(BigInt(snapshotVersion) + 1n);
    await runs.record(trx, runRecord({ id, startedAt, finishedAt, planningUnitId, status, counted: tally, entityCount, upstreamFingerprint: fingerprint, snapshotVersion: left }), errors);
    return { tally, errors, status, fingerprint };
  });
}
