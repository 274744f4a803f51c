/**
 * The run log: one row per sync run and the per-pair errors it recorded; and the snapshot's version (table
 * `snapshot_version`, one row) that fences every commit of a run. The version moves on with every run that
 * writes changes, in its transaction (advanceSnapshot); a run reads it with the last committed run
 * (lastCommitted), and commits only while it is still that value, so a run another committed behind (two at
 * once: a run lock's session had ended) cannot write against a snapshot that is no longer current.
 */
import type { Knex } from '@timetable/db';

export type SyncRunStatus = 'succeeded' | 'partial' | 'failed' | 'skipped';

export interface PairError {
  errorMessage: string;
  /** Service UUIDs of the failing pair; null where the failure is not tied to one. */
  programId: string | null;
  semesterId: string | null;
  occurredAt: Date;
}

export interface SyncRunRecord {
  id: string;
  startedAt: Date;
  finishedAt: Date;
  planningUnitId: number | null;
  status: SyncRunStatus;
  created: number;
  updated: number;
  deleted: number;
  entityCount: number;
  errorMessage: string | null;
  /**
   * Hash over every upstream answer the run read, set only when it read and committed all of them
   * (status succeeded): the next run that reads the same answers has nothing to do.
   */
  upstreamFingerprint: string | null;
  /**
   * The snapshot's version the run left: one more than it read for a run that wrote
   * changes, the one it read for a run that changed nothing, null for a failed run.
   */
  snapshotVersion: string | null;
}

interface RunRow {
  id: string;
  started_at: Date;
  finished_at: Date;
  planning_unit_id: number | null;
  status: SyncRunStatus;
  created_count: number;
  updated_count: number;
  deleted_count: number;
  entity_count: number;
  error_message: string | null;
  upstream_fingerprint: string | null;
  snapshot_version: string | number | null;
}

export interface SyncRunStoreDeps {
  /** On the `sync` schema. */
  knex: Knex;
}

export class SyncRunStore {
  private readonly knex: Knex;

  constructor(deps: SyncRunStoreDeps) {
    this.knex = deps.knex;
  }

  async record(trx: Knex | Knex.Transaction, run: SyncRunRecord, errors: readonly PairError[]): Promise<void> {
    await trx('sync_runs').insert(rowOf(run));
    if (errors.length === 0) return;
    await trx('sync_errors').insert(
      errors.map((error) => ({
        sync_run_id: run.id,
        error_message: error.errorMessage,
        program_id: error.programId,
        semester_id: error.semesterId,
        occurred_at: error.occurredAt,
      })),
    );
  }

  /**
   * Records a run that changed nothing, in one statement, only if the snapshot is still at `snapshotVersion`:
   * false when another run has committed since. The row's share lock waits for a commit
   * in progress, and then sees its version.
   */
  async recordIfSnapshotAt(db: Knex | Knex.Transaction, run: SyncRunRecord, snapshotVersion: string): Promise<boolean> {
    const row = rowOf(run);
    const result = await db.raw<{ rowCount: number }>(
      `with fence as (select 1 from snapshot_version where version = ? for share)
       insert into sync_runs (${RUN_COLUMNS.map(() => '??').join(', ')})
       select * from (values (${RUN_COLUMNS.map((column) => `?::${RUN_COLUMN_TYPES[column]}`).join(', ')})) as run
       where exists (select 1 from fence)`,
      [snapshotVersion, ...RUN_COLUMNS, ...RUN_COLUMNS.map((column) => row[column])],
    );
    return result.rowCount === 1;
  }

  /**
   * Inside the run's transaction, before its changes: moves the snapshot's version on from `expected`, or
   * answers false when another run has moved it since. The row's lock makes a second run's commit wait for the
   * first's and then find the version it wrote, so of two runs that read the same version only one gets past this.
   */
  async advanceSnapshot(trx: Knex.Transaction, expected: string): Promise<boolean> {
    const updated = await trx('snapshot_version').where({ version: expected }).increment('version', 1);
    return updated === 1;
  }

  /**
   * The last run that read the upstream and committed, and the snapshot's version, read in one statement so
   * that they belong together: a run compares its answers with that run's, and fences its commit on that
   * version. The last is the one of the highest version, then the latest to finish: replicas' clocks, and the
   * moment a run took its time before its commit, do not order commits.
   */
  async lastCommitted(): Promise<{ run: SyncRunRecord | undefined; snapshotVersion: string }> {
    const { rows } = await this.knex.raw<{ rows: (Partial<RunRow> & { current_version: string | number })[] }>(
      `select run.*, current.version as current_version from snapshot_version as current
       left join lateral (
         select * from sync_runs where status in ('succeeded', 'partial')
         order by snapshot_version desc nulls last, finished_at desc limit 1
       ) as run on true`,
    );
    const row = rows[0];
    if (row === undefined) throw new Error('snapshot_version holds no row: the sync schema is not migrated');
    return { run: row.id === null || row.id === undefined ? undefined : recordOf(row as RunRow), snapshotVersion: String(row.current_version) };
  }

  async latest(filter?: { fetched: boolean }): Promise<SyncRunRecord | undefined> {
    const query = this.knex('sync_runs').orderBy('finished_at', 'desc').first<RunRow | undefined>();
    if (filter?.fetched) query.whereIn('status', ['succeeded', 'partial']);
    const row = await query;
    return row && recordOf(row);
  }

  async errorsOf(runId: string): Promise<PairError[]> {
    const rows: { error_message: string; program_id: string | null; semester_id: string | null; occurred_at: Date }[] =
      await this.knex('sync_errors').where({ sync_run_id: runId }).orderBy('id');
    return rows.map((row) => ({
      errorMessage: row.error_message,
      programId: row.program_id,
      semesterId: row.semester_id,
      occurredAt: row.occurred_at,
    }));
  }
}

const RUN_COLUMN_TYPES = {
  id: 'uuid',
  started_at: 'timestamptz',
  finished_at: 'timestamptz',
  planning_unit_id: 'integer',
  status: 'text',
  created_count: 'integer',
  updated_count: 'integer',
  deleted_count: 'integer',
  entity_count: 'integer',
  error_message: 'text',
  upstream_fingerprint: 'text',
  snapshot_version: 'bigint',
} as const satisfies Record<keyof RunRow, string>;
const RUN_COLUMNS = Object.keys(RUN_COLUMN_TYPES) as (keyof RunRow)[];

function rowOf(run: SyncRunRecord): RunRow {
  return {
    id: run.id,
    started_at: run.startedAt,
    finished_at: run.finishedAt,
    planning_unit_id: run.planningUnitId,
    status: run.status,
    created_count: run.created,
    updated_count: run.updated,
    deleted_count: run.deleted,
    entity_count: run.entityCount,
    error_message: run.errorMessage,
    upstream_fingerprint: run.upstreamFingerprint,
    snapshot_version: run.snapshotVersion,
  };
}

function recordOf(row: RunRow): SyncRunRecord {
  return {
    id: row.id,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    planningUnitId: row.planning_unit_id,
    status: row.status,
    created: row.created_count,
    updated: row.updated_count,
    deleted: row.deleted_count,
    entityCount: row.entity_count,
    errorMessage: row.error_message,
    upstreamFingerprint: row.upstream_fingerprint,
    snapshotVersion: row.snapshot_version === null ? null : String(row.snapshot_version),
  };
}
