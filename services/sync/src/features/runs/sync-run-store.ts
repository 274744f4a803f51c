/** The run log: one row per sync run and the per-pair errors it recorded. */
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
    await trx('sync_runs').insert({
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
    });
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

  async latest(filter?: { fetched: boolean }): Promise<SyncRunRecord | undefined> {
    const query = this.knex('sync_runs').orderBy('finished_at', 'desc').first<RunRow | undefined>();
    if (filter?.fetched) query.whereIn('status', ['succeeded', 'partial']);
    const row = await query;
    return row && {
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
    };
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
