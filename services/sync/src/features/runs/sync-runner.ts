/** One sync run: read the upstream, build the next snapshot, diff, and commit snapshot + run + outbox at once. */
import { randomUUID } from 'node:crypto';
import { localDateOf } from '@timetable/calendar';
import { ENTITY_TYPES, type EntityType } from '@timetable/contracts';
import type { Knex } from '@timetable/db';
import { appendToOutbox, type OutboxRelay } from '@timetable/events';
import type { Logger } from '@timetable/observability';
import { diffSnapshots, type EntityChange } from '../diff/diff-snapshots.js';
import { programIdOf, semesterIdOf } from '../normalise/upstream-ids.js';
import type { SnapshotStore, StoredEntity } from '../snapshot/snapshot-store.js';
import { readUpstream, type ScopedFailure } from '../upstream-client/read-upstream.js';
import type { StarplanClient } from '../upstream-client/starplan-client.js';
import { withAdvisoryLock } from './advisory-lock.js';
import { syncChangesEmitted, syncEntitiesSeen, syncLastSuccess, syncPairFailures, syncRunDuration } from './metrics.js';
import { buildNextSnapshot } from './next-snapshot.js';
import { guardChanges } from './schema-guard.js';
import type { PairError, SyncRunRecord, SyncRunStatus, SyncRunStore } from './sync-run-store.js';

export interface SyncRunResult {
  /** Null when the run was skipped because another replica holds the lock. */
  syncRunId: string | null;
  status: SyncRunStatus;
  planningUnitId: number | null;
  created: number;
  updated: number;
  deleted: number;
  errors: PairError[];
}

export interface SyncRunnerDeps {
  knex: Knex;
  client: StarplanClient;
  snapshots: SnapshotStore;
  runs: SyncRunStore;
  relay: OutboxRelay;
  logger: Logger;
  timeZone: string;
  planningUnit?: number | undefined;
  now?: () => Date;
}

const LOCK_NAME = 'timetable-sync-run';

export class SyncRunner {
  private inFlight: Promise<SyncRunResult> | undefined;

  constructor(private readonly deps: SyncRunnerDeps) {}

  /** Concurrent calls in one process share the run in flight; other replicas are kept out by the lock. */
  runOnce(): Promise<SyncRunResult> {
    this.inFlight ??= this.lockedRun().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async lockedRun(): Promise<SyncRunResult> {
    const result = await withAdvisoryLock(this.deps.knex, LOCK_NAME, () => this.run());
    if (result) return result;
    this.deps.logger.info('another replica is syncing; skipping this run');
    return { syncRunId: null, status: 'skipped', planningUnitId: null, created: 0, updated: 0, deleted: 0, errors: [] };
  }

  private async run(): Promise<SyncRunResult> {
    const now = this.deps.now ?? (() => new Date());
    const startedAt = now();
    const id = randomUUID();
    const endTimer = syncRunDuration.startTimer();
    try {
      const result = await this.fetchAndCommit(id, startedAt, now);
      endTimer({ status: result.status });
      return result;
    } catch (error) {
      const errorMessage = error instanceof Error ? error.message : String(error);
      const finishedAt = now();
      const errors = [{ errorMessage, programId: null, semesterId: null, occurredAt: finishedAt }];
      const run = runRecord(id, startedAt, finishedAt, null, 'failed', [], 0, errorMessage);
      await this.deps.runs.record(this.deps.knex, run, errors);
      endTimer({ status: 'failed' });
      this.deps.logger.warn({ err: error, syncRunId: id }, 'sync run aborted without changes');
      return { syncRunId: id, status: 'failed', planningUnitId: null, created: 0, updated: 0, deleted: 0, errors };
    }
  }

  private async fetchAndCommit(id: string, startedAt: Date, now: () => Date): Promise<SyncRunResult> {
    const { client, snapshots, runs, knex, logger, timeZone } = this.deps;
    const previous = await snapshots.load();
    const { upstream, failures: fetchFailures } = await readUpstream(client, {
      today: localDateOf(startedAt, timeZone),
      forcedPlanningUnit: this.deps.planningUnit,
    });
    const next = buildNextSnapshot(upstream, fetchFailures, previous);
    const finishedAt = now();
    const { accepted: changes, messages, rejected } = guardChanges(diffSnapshots(previous, next.entities), id, finishedAt);
    const errors = [...next.failures.map((failure) => pairErrorOf(failure, finishedAt)), ...rejected];
    const status: SyncRunStatus = errors.length > 0 ? 'partial' : 'succeeded';
    const run = runRecord(id, startedAt, finishedAt, upstream.planningUnit.id, status, changes, next.entities.size, null);
    const scopes = new Map([...next.entities].map(([key, entity]) => [key, entity.scopes]));
    const rescoped = [...next.entities].flatMap(([key, entity]) => (rescopedOnly(previous.get(key), entity.scopes) ? [entity] : []));
    await knex.transaction(async (trx) => {
      await snapshots.apply(trx, changes, scopes, rescoped, finishedAt);
      await runs.record(trx, run, errors);
      await appendToOutbox(trx, messages);
    });
    this.deps.relay.wake();
    recordMetrics(changes, next.entities.values(), finishedAt, errors.length);
    logger.info(
      { syncRunId: id, pu: upstream.planningUnit.id, changes: changes.length, failures: errors.length, unmatched: next.unmatchedOccurrences },
      'sync run committed',
    );
    return { syncRunId: id, status, planningUnitId: upstream.planningUnit.id, ...countActions(changes), errors };
  }
}

function pairErrorOf(failure: ScopedFailure, occurredAt: Date): PairError {
  return {
    errorMessage: failure.message,
    programId: programIdOf(failure.og),
    semesterId: failure.pgid === null ? null : semesterIdOf(failure.pgid),
    occurredAt,
  };
}

/** Unchanged data whose scopes moved (e.g. a course now also listed by another program). */
function rescopedOnly(before: StoredEntity | undefined, scopes: string[]): boolean {
  return before !== undefined && before.scopes.join('\n') !== scopes.join('\n');
}

function countActions(changes: readonly EntityChange[]): { created: number; updated: number; deleted: number } {
  const count = (action: EntityChange['action']) => changes.filter((change) => change.action === action).length;
  return { created: count('created'), updated: count('updated'), deleted: count('deleted') };
}

function runRecord(
  id: string,
  startedAt: Date,
  finishedAt: Date,
  planningUnitId: number | null,
  status: SyncRunStatus,
  changes: readonly EntityChange[],
  entityCount: number,
  errorMessage: string | null,
): SyncRunRecord {
  return { id, startedAt, finishedAt, planningUnitId, status, ...countActions(changes), entityCount, errorMessage };
}

function recordMetrics(changes: readonly EntityChange[], entities: Iterable<{ entityType: EntityType }>, finishedAt: Date, failures: number): void {
  for (const change of changes) syncChangesEmitted.inc({ entity_type: change.entityType, action: change.action });
  const seen = new Map<EntityType, number>(ENTITY_TYPES.map((type) => [type, 0]));
  for (const entity of entities) seen.set(entity.entityType, (seen.get(entity.entityType) ?? 0) + 1);
  for (const [entityType, count] of seen) syncEntitiesSeen.set({ entity_type: entityType }, count);
  syncLastSuccess.set(finishedAt.getTime() / 1000);
  if (failures > 0) syncPairFailures.inc(failures);
}
