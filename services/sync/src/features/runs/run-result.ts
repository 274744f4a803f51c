/** What a sync run returns, and the record and errors it leaves in the run table. */
import { programIdOf, semesterIdOf } from '../normalise/upstream-ids.js';
import type { ScopedFailure } from '../read/read-upstream.js';
import type { PairError, SyncRunRecord, SyncRunStatus } from '../write/sync-run-store.js';

export interface SyncRunResult {
  /** Null when the run was skipped because another replica holds the lock. */
  syncRunId: string | null;
  status: SyncRunStatus;
  planningUnitId: number | null;
  created: number;
  updated: number;
  deleted: number;
  errors: PairError[];
  /** Group feeds parsed in this run. */
  feedsParsed: number;
  /** Group feeds that came back as the snapshot's events of their group were built from: not parsed. */
  feedsUnchanged: number;
  /** Every answer was the one the last complete run read: the run ended without building or diffing. */
  upstreamUnchanged: boolean;
}

/** How many feeds a run parsed and how many it kept unparsed. */
export interface FeedsRead {
  feedsParsed: number;
  feedsUnchanged: number;
}

export interface ChangeCounts {
  created: number;
  updated: number;
  deleted: number;
}

export const NO_CHANGES: ChangeCounts = { created: 0, updated: 0, deleted: 0 };

export const NOTHING_READ = { feedsParsed: 0, feedsUnchanged: 0, upstreamUnchanged: false } as const;

/** Why a run committed nothing, changes or its record: another run wrote changes since it began (SyncRunStore). */
export const SUPERSEDED_MESSAGE =
  'another sync run committed while this one ran (two ran at once: a run lock\'s session had ended): this run committed nothing, the next one reads again';

export class SupersededRunError extends Error {
  constructor() {
    super(SUPERSEDED_MESSAGE);
  }
}

/** A run's record as the run knows it: its change counts as one tally, and null for what it did not get to. */
export type RunRecordFields = Omit<SyncRunRecord, keyof ChangeCounts | 'errorMessage' | 'upstreamFingerprint' | 'snapshotVersion'> & {
  counted: ChangeCounts;
  errorMessage?: string | null;
  upstreamFingerprint?: string | null;
  snapshotVersion?: string | null;
};

export function runRecord({ counted, errorMessage = null, upstreamFingerprint = null, snapshotVersion = null, ...run }: RunRecordFields): SyncRunRecord {
  const { created, updated, deleted } = counted;
  return { ...run, created, updated, deleted, errorMessage, upstreamFingerprint, snapshotVersion };
}

export function pairErrorOf(failure: ScopedFailure, occurredAt: Date): PairError {
  return {
    errorMessage: failure.message,
    programId: programIdOf(failure.og),
    semesterId: failure.pgid === null ? null : semesterIdOf(failure.pgid),
    occurredAt,
  };
}
