/**
 * Every answer is the one the last complete run read, so building and diffing would give back the snapshot
 * as it is: record the run and stop, without loading the snapshot. Fenced like a commit of changes: were the
 * record written after another run committed, it would name the older answers as the snapshot's, and a later
 * run finding those answers again would take the snapshot for theirs.
 */
import type { Knex } from '@timetable/db';
import type { Logger } from '@timetable/observability';
import type { SnapshotStore } from '../write/snapshot-store.js';
import type { SyncRunRecord, SyncRunStore } from '../write/sync-run-store.js';
import type { UpstreamBodyStore } from '../write/upstream-body-store.js';
import { syncLastSuccess } from './metrics.js';
import { NO_CHANGES, runRecord, SupersededRunError, type FeedsRead, type SyncRunResult } from './run-result.js';
import { recordFeedMetrics, type EntityGauges } from './run-metrics.js';
import type { ListRowChanges } from './stored-answers.js';

export interface UnchangedCommitDeps {
  knex: Knex;
  runs: SyncRunStore;
  bodies: UpstreamBodyStore;
  snapshots: SnapshotStore;
  logger: Logger;
  gauges: EntityGauges;
}

export interface UnchangedRun {
  id: string;
  startedAt: Date;
  finishedAt: Date;
  planningUnitId: number;
  /** The last committed run, whose snapshot this run found still current, and the snapshot's version. */
  lastCommitted: SyncRunRecord;
  snapshotVersion: string;
  feeds: FeedsRead;
  /** Stored list rows to put right with the record (written by a version that lost rows). */
  listRows?: ListRowChanges | undefined;
}

/** What the run found: the snapshot of the last committed run still current, and how it read the feeds. */
export type FoundUnchanged = Pick<UnchangedRun, 'lastCommitted' | 'planningUnitId' | 'feeds' | 'listRows'>;

export async function commitUnchanged(deps: UnchangedCommitDeps, unchanged: UnchangedRun): Promise<SyncRunResult> {
  const { knex, runs, bodies, snapshots, logger, gauges } = deps;
  const { id, startedAt, finishedAt, planningUnitId, lastCommitted, snapshotVersion, listRows } = unchanged;
  const { entityCount, upstreamFingerprint } = lastCommitted;
  const run = runRecord({ id, startedAt, finishedAt, planningUnitId, status: 'succeeded', counted: NO_CHANGES, entityCount, upstreamFingerprint, snapshotVersion });
  const recordFenced = async (db: Knex) => {
    if (!(await runs.recordIfSnapshotAt(db, run, snapshotVersion))) throw new SupersededRunError();
  };
  const record = listRows === undefined
    ? () => recordFenced(knex)
    : () =>
        knex.transaction(async (trx) => {
          await recordFenced(trx);
          await bodies.apply(trx, { ...listRows, feedUpserts: new Map(), feedDeletes: [] }, finishedAt);
        });
  // The gauges as a run that built the snapshot would set them, unless this process already did for it (a
  // restarted process has none yet; another replica may have committed the runs since). Counted while the
  // run is recorded; set only once it is.
  const counting = gauges.needsCount(upstreamFingerprint) ? snapshots.countByType() : undefined;
  const [, counts] = await Promise.all([record(), counting]);
  if (counts !== undefined) gauges.set(upstreamFingerprint, counts);
  syncLastSuccess.set(finishedAt.getTime() / 1000);
  const read = { ...unchanged.feeds, upstreamUnchanged: true };
  recordFeedMetrics(read);
  logger.info({ syncRunId: id, pu: planningUnitId, ...read }, 'sync run found the upstream unchanged');
  return { syncRunId: id, status: 'succeeded', planningUnitId, ...NO_CHANGES, errors: [], ...read };
}
