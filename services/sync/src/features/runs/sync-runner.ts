/** One sync run: read the upstream, build the next snapshot, diff, and commit snapshot + run + outbox at once. */
import { createHash, randomUUID } from 'node:crypto';
import { localDateOf } from '@timetable/calendar';
import { ENTITY_TYPES, type EntityType } from '@timetable/contracts';
import type { Knex } from '@timetable/db';
import { appendToOutbox, type OutboxRelay } from '@timetable/events';
import type { Logger } from '@timetable/observability';
import { diffSnapshots, type EntityChange } from '../diff/diff-snapshots.js';
import { programIdOf, semesterIdOf } from '../normalise/upstream-ids.js';
import type { SnapshotStore, StoredEntity } from '../snapshot/snapshot-store.js';
import { readUpstream, rereadFeeds, type ScopedFailure } from '../upstream-client/read-upstream.js';
import type { SeenBodies, StarplanClient } from '../upstream-client/starplan-client.js';
import type { UpstreamSnapshot } from '../upstream-client/upstream-snapshot.js';
import { withAdvisoryLock } from './advisory-lock.js';
import { syncChangesEmitted, syncEntitiesSeen, syncFeedsRead, syncLastSuccess, syncPairFailures, syncRunDuration } from './metrics.js';
import { buildNextSnapshot, DERIVATION_VERSION, feedRecordChanges } from './next-snapshot.js';
import { guardChanges, outboxMessages } from './schema-guard.js';
import type { PairError, SyncRunRecord, SyncRunStatus, SyncRunStore } from './sync-run-store.js';
import type { UpstreamBodyStore } from './upstream-body-store.js';

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

export interface SyncRunnerDeps {
  knex: Knex;
  client: StarplanClient;
  snapshots: SnapshotStore;
  runs: SyncRunStore;
  bodies: UpstreamBodyStore;
  relay: OutboxRelay;
  logger: Logger;
  timeZone: string;
  planningUnit?: number | undefined;
  now?: () => Date;
}

const LOCK_NAME = 'timetable-sync-run';
/** Changes whose outbox messages are built and written at a time. */
const OUTBOX_CHUNK = 1000;

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
    return { syncRunId: null, status: 'skipped', planningUnitId: null, ...NO_CHANGES, errors: [], ...NOTHING_READ };
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
      const run = runRecord(id, startedAt, finishedAt, null, 'failed', [], 0, errorMessage, null);
      await this.deps.runs.record(this.deps.knex, run, errors);
      endTimer({ status: 'failed' });
      this.deps.logger.warn({ err: error, syncRunId: id }, 'sync run aborted without changes');
      return { syncRunId: id, status: 'failed', planningUnitId: null, ...NO_CHANGES, errors, ...NOTHING_READ };
    }
  }

  private async fetchAndCommit(id: string, startedAt: Date, now: () => Date): Promise<SyncRunResult> {
    const { client, snapshots, runs, bodies, knex, logger, timeZone } = this.deps;
    const [stored, lastCommitted] = await Promise.all([bodies.load(), runs.latest({ fetched: true })]);
    const { upstream, failures: fetchFailures } = await readUpstream(client, {
      today: localDateOf(startedAt, timeZone),
      forcedPlanningUnit: this.deps.planningUnit,
      knownFeeds: new Map([...stored.feeds].map(([pgid, record]) => [pgid, { bodyHash: record.bodyHash, ...(record.validators ? { validators: record.validators } : {}) }])),
    });
    if (fetchFailures.length === 0 && lastCommitted?.status === 'succeeded' && lastCommitted.upstreamFingerprint === fingerprintOf(upstream.bodies)) {
      return this.commitUnchanged(id, startedAt, now(), upstream, lastCommitted);
    }
    const previous = await snapshots.load();
    let next = buildNextSnapshot(upstream, fetchFailures, previous, stored.feeds);
    let readFailures = fetchFailures;
    if (next.feedsToReread.length > 0) {
      readFailures = [...fetchFailures, ...(await rereadFeeds(client, upstream, next.feedsToReread))];
      next = buildNextSnapshot(upstream, readFailures, previous, stored.feeds);
    }
    const finishedAt = now();
    const feedsParsed = upstream.feeds.size;
    // The occurrences are in the events now; what follows (diff, check, commit) is the peak of a first sync.
    upstream.feeds.clear();
    const { accepted: changes, rejected } = guardChanges(diffSnapshots(previous, next.entities), id, finishedAt);
    const errors = [...next.failures.map((failure) => pairErrorOf(failure, finishedAt)), ...rejected];
    const status: SyncRunStatus = errors.length > 0 ? 'partial' : 'succeeded';
    const fingerprint = status === 'succeeded' ? fingerprintOf(upstream.bodies) : null;
    const run = runRecord(id, startedAt, finishedAt, upstream.planningUnit.id, status, changes, next.entities.size, null, fingerprint);
    const scopes = new Map([...next.entities].map(([key, entity]) => [key, entity.scopes]));
    const rescoped = [...next.entities].flatMap(([key, entity]) => (rescopedOnly(previous.get(key), entity.scopes) ? [entity] : []));
    const feedRecords = feedRecordChanges(next, stored.feeds, previous);
    const lists = new Map([...upstream.bodies].filter(([request, hash]) => request.startsWith('json?') && stored.lists.get(request) !== hash));
    await knex.transaction(async (trx) => {
      await snapshots.apply(trx, changes, scopes, rescoped, finishedAt);
      await bodies.apply(trx, { lists, replaceLists: status === 'succeeded', feedUpserts: feedRecords.upserts, feedDeletes: feedRecords.deletes }, finishedAt);
      await runs.record(trx, run, errors);
      for (let index = 0; index < changes.length; index += OUTBOX_CHUNK) {
        await appendToOutbox(trx, outboxMessages(changes.slice(index, index + OUTBOX_CHUNK), id, finishedAt));
      }
    });
    this.deps.relay.wake();
    recordMetrics(changes, next.entities.values(), finishedAt, errors.length);
    const read = { feedsParsed, feedsUnchanged: next.reusedFeeds.size, upstreamUnchanged: false };
    recordFeedMetrics(read);
    logger.info(
      { syncRunId: id, pu: upstream.planningUnit.id, changes: changes.length, failures: errors.length, unmatched: next.unmatchedOccurrences, ...read },
      'sync run committed',
    );
    return { syncRunId: id, status, planningUnitId: upstream.planningUnit.id, ...countActions(changes), errors, ...read };
  }

  /**
   * Every answer is the one the last complete run read, so building and diffing would give back the snapshot
   * as it is: record the run and stop, without loading the snapshot.
   */
  private async commitUnchanged(
    id: string,
    startedAt: Date,
    finishedAt: Date,
    upstream: UpstreamSnapshot,
    lastCommitted: SyncRunRecord,
  ): Promise<SyncRunResult> {
    const run = runRecord(id, startedAt, finishedAt, upstream.planningUnit.id, 'succeeded', [], lastCommitted.entityCount, null, lastCommitted.upstreamFingerprint);
    await this.deps.runs.record(this.deps.knex, run, []);
    // The gauges as a run that built the snapshot would set them (a restarted process has none yet).
    const counts = await this.deps.snapshots.countByType();
    for (const entityType of ENTITY_TYPES) syncEntitiesSeen.set({ entity_type: entityType }, counts.get(entityType) ?? 0);
    syncLastSuccess.set(finishedAt.getTime() / 1000);
    const read = { feedsParsed: upstream.feeds.size, feedsUnchanged: upstream.unchangedFeeds.size, upstreamUnchanged: true };
    recordFeedMetrics(read);
    this.deps.logger.info({ syncRunId: id, pu: upstream.planningUnit.id, ...read }, 'sync run found the upstream unchanged');
    return { syncRunId: id, status: 'succeeded', planningUnitId: upstream.planningUnit.id, ...NO_CHANGES, errors: [], ...read };
  }
}

const NO_CHANGES = { created: 0, updated: 0, deleted: 0 } as const;
const NOTHING_READ = { feedsParsed: 0, feedsUnchanged: 0, upstreamUnchanged: false } as const;

/**
 * One hash over every answer of a run (request and body hash, in request order), the time zone feeds are
 * read in (part of each feed's hash) and DERIVATION_VERSION.
 */
function fingerprintOf(bodies: SeenBodies): string {
  const hash = createHash('sha256').update(`v${DERIVATION_VERSION}\n`);
  for (const request of [...bodies.keys()].sort()) hash.update(`${request}\t${bodies.get(request)}\n`);
  return hash.digest('hex');
}

function recordFeedMetrics(read: { feedsParsed: number; feedsUnchanged: number }): void {
  syncFeedsRead.inc({ outcome: 'parsed' }, read.feedsParsed);
  syncFeedsRead.inc({ outcome: 'unchanged' }, read.feedsUnchanged);
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
  upstreamFingerprint: string | null,
): SyncRunRecord {
  return { id, startedAt, finishedAt, planningUnitId, status, ...countActions(changes), entityCount, errorMessage, upstreamFingerprint };
}

function recordMetrics(changes: readonly EntityChange[], entities: Iterable<{ entityType: EntityType }>, finishedAt: Date, failures: number): void {
  for (const change of changes) syncChangesEmitted.inc({ entity_type: change.entityType, action: change.action });
  const seen = new Map<EntityType, number>(ENTITY_TYPES.map((type) => [type, 0]));
  for (const entity of entities) seen.set(entity.entityType, (seen.get(entity.entityType) ?? 0) + 1);
  for (const [entityType, count] of seen) syncEntitiesSeen.set({ entity_type: entityType }, count);
  syncLastSuccess.set(finishedAt.getTime() / 1000);
  if (failures > 0) syncPairFailures.inc(failures);
}
