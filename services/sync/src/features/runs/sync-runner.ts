/**
 * One sync run: after a complete run, first whether every answer is the one it read (hashing only, and most
 * runs end there); otherwise read the lists, then the feeds (each built into events as it arrives), diff
 * against the last snapshot, and commit snapshot + run + outbox in one transaction.
 */
import { createHash, randomUUID } from 'node:crypto';
import { localDateOf } from '@timetable/calendar';
import { ENTITY_TYPES, type EntityType } from '@timetable/contracts';
import type { Knex } from '@timetable/db';
import type { OutboxRelay } from '@timetable/events';
import type { Logger } from '@timetable/observability';
import { programScope } from '../normalise/normalised-entity.js';
import { programIdOf, semesterIdOf } from '../normalise/upstream-ids.js';
import { ScopeCounts } from '../diff/scope-counts.js';
import type { IndexedEntity } from '../diff/diff-snapshots.js';
import type { SnapshotStore } from '../write/snapshot-store.js';
import type { StagedEntityStore } from '../write/staged-entity-store.js';
import type { FeedOccurrence } from '../validate/feed-occurrence.js';
import { readAsStored, readPlanningUnits, type LastRead } from '../read/read-as-stored.js';
import { groupsToRead, READ_VERSION, readFeeds, readLists, rereadFeeds, type ScopedFailure } from '../read/read-upstream.js';
import type { SeenBodies, StarplanClient } from '../read/starplan-client.js';
import type { UpstreamPlanningGroup } from '../read/upstream-types.js';
import type { UpstreamSnapshot } from '../read/upstream-snapshot.js';
import { withAdvisoryLock } from './advisory-lock.js';
import {
  syncChangesEmitted,
  syncEntitiesSeen,
  syncFeedsRead,
  syncLastSuccess,
  syncPairFailures,
  syncRunDuration,
  syncRunsSuperseded,
  syncStoredAnswerChecks,
} from './metrics.js';
import { DERIVATION_VERSION, feedRecordChanges, type FeedRecord } from '../diff/feed-records.js';
import { NextSnapshotBuilder } from '../diff/next-snapshot.js';
import { listsLookEmpty, rejectImplausibleLists } from '../diff/safety-valve.js';
import type { ChangeTally} from '../write/write-changes.js';
import { writeChanges } from '../write/write-changes.js';
import type { PairError, SyncRunRecord, SyncRunStatus, SyncRunStore } from '../write/sync-run-store.js';
import type { StoredHashes, UpstreamBodyStore } from '../write/upstream-body-store.js';

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
  staged: StagedEntityStore;
  runs: SyncRunStore;
  bodies: UpstreamBodyStore;
  relay: OutboxRelay;
  logger: Logger;
  timeZone: string;
  planningUnit?: number | undefined;
  now?: () => Date;
}

const LOCK_NAME = 'timetable-sync-run';

/** Why a run committed nothing, changes or its record: another run wrote changes since it began (SyncRunStore). */
export const SUPERSEDED_MESSAGE =
  'another sync run committed while this one ran (two ran at once: a run lock\'s session had ended): this run committed nothing, the next one reads again';

class SupersededRunError extends Error {
  constructor() {
    super(SUPERSEDED_MESSAGE);
  }
}

export class SyncRunner {
  private inFlight: Promise<SyncRunResult> | undefined;
  /**
   * The fingerprint of the snapshot whose entity counts this process last put in the gauges (null: a run
   * that committed with failures). The same fingerprint means the same snapshot, so an unchanged run need
   * not count it again.
   */
  private gaugedFingerprint: string | null | undefined;

  constructor(private readonly deps: SyncRunnerDeps) {}

  /** Concurrent calls in one process share the run in flight; other replicas are kept out by the lock. */
  runOnce(): Promise<SyncRunResult> {
    this.inFlight ??= this.lockedRun().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async lockedRun(): Promise<SyncRunResult> {
    const result = await withAdvisoryLock(this.deps.knex, LOCK_NAME, () => this.run(), { logger: this.deps.logger });
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
      // Background staging writes of this run end here rather than run on behind it.
      await this.deps.staged.clear().catch(() => undefined);
      const errorMessage = error instanceof Error ? error.message : String(error);
      const finishedAt = now();
      const errors = [{ errorMessage, programId: null, semesterId: null, occurredAt: finishedAt }];
      const run = runRecord(id, startedAt, finishedAt, null, 'failed', NO_CHANGES, 0, errorMessage, null, null);
      await this.deps.runs.record(this.deps.knex, run, errors);
      endTimer({ status: 'failed' });
      if (error instanceof SupersededRunError) syncRunsSuperseded.inc();
      this.deps.logger.warn({ err: error, syncRunId: id }, 'sync run aborted without changes');
      return { syncRunId: id, status: 'failed', planningUnitId: null, ...NO_CHANGES, errors, ...NOTHING_READ };
    }
  }

  private async fetchAndCommit(id: string, startedAt: Date, now: () => Date): Promise<SyncRunResult> {
    const { client, snapshots, staged, runs, bodies, knex, logger, timeZone } = this.deps;
    // Every run reads the planning units first, whatever the store holds, so they are asked for while the
    // store answers. Should the store fail first, their answer arriving later only fills the client's kept
    // lists, which any run may share.
    // The snapshot's version comes with the last committed run: every commit of this run, even of a run that
    // changed nothing, is fenced on it (SyncRunStore).
    const [stored, { run: lastCommitted, snapshotVersion }, planningUnitsRead] = await Promise.all([
      bodies.loadHashes(),
      runs.lastCommitted(),
      readPlanningUnits(client),
    ]);
    const today = localDateOf(startedAt, timeZone);
    const forcedPlanningUnit = this.deps.planningUnit;
    // After a complete run, first whether every answer is the one it read, decoding only the planning units:
    // most runs end here.
    const last = lastCompleteRead(stored, lastCommitted);
    const firstRead = last && (await readAsStored(client, last, { today, forcedPlanningUnit, planningUnitsRead }));
    if (firstRead?.everyAnswerAsStored && lastCommitted?.upstreamFingerprint === fingerprintOf(firstRead.bodies)) {
      syncStoredAnswerChecks.inc({ outcome: 'unchanged' });
      client.keepListsRead(firstRead.bodies);
      return this.commitUnchanged(id, startedAt, now(), firstRead.planningUnit.id, { lastCommitted, snapshotVersion }, { feedsParsed: 0, feedsUnchanged: firstRead.feedsUnchanged });
    }
    if (firstRead) {
      syncStoredAnswerChecks.inc({ outcome: 'changed' });
      logger.debug({ syncRunId: id, everyAnswerAsStored: firstRead.everyAnswerAsStored }, 'an answer differs from the last complete run\'s: reading the upstream as usual');
    }
    // Otherwise the usual read, which takes what the first one received rather than asking again.
    const reading = firstRead ? client.withReadAhead(firstRead.ahead) : client;
    const { upstream, failures: fetchFailures } = await readLists(reading, { today, forcedPlanningUnit, planningUnitsRead });
    // The valve compares an empty list with the snapshot's counts; only then are they worth a query.
    const counts = listsLookEmpty(upstream) ? await snapshots.scopeCounts() : new ScopeCounts();
    const listFailures = [...fetchFailures, ...rejectImplausibleLists(upstream, counts)];
    // The last snapshot and the feeds' derivations are read only once a feed has to be built: a run that finds
    // every answer unchanged never needs them.
    let building: Promise<Building> | undefined;
    const builder = () => (building ??= this.startBuilding(id, upstream, listFailures));
    let feedsParsed = 0;
    const onParsed = async (og: number, group: UpstreamPlanningGroup, occurrences: FeedOccurrence[]) => {
      feedsParsed += 1;
      const { builder: next } = await builder();
      next.addFeed(og, group, occurrences);
      await staged.add(next.takeChanged());
    };
    const feedFailures = await readFeeds(reading, upstream, { knownFeeds: stored.feeds, onParsed });
    if (listFailures.length === 0 && feedFailures.length === 0 && lastCommitted?.status === 'succeeded' && lastCommitted.upstreamFingerprint === fingerprintOf(upstream.bodies)) {
      // A feed parsed without a record may have started building: nothing of it is needed now.
      if (building !== undefined) await staged.clear();
      // The first read would have ended the run had the stored list rows named every list read: they did not
      // (written by a version that lost rows), so they are put right with the run.
      const { lists, listsRead } = listRowChanges(upstream.bodies, stored, 'succeeded');
      const listRows = lists.size > 0 || stored.lists.size !== listsRead?.size ? { lists, listsRead } : undefined;
      return this.commitUnchanged(id, startedAt, now(), upstream.planningUnit.id, { lastCommitted, snapshotVersion }, { feedsParsed, feedsUnchanged: upstream.unchangedFeeds.size }, listRows);
    }
    const { builder: next, previous, feedRecords: storedFeeds } = await builder();
    for (const failure of feedFailures) next.failFeed(failure);
    const reread = groupsToRead(upstream.programs, upstream.groupsByProgram).filter(({ og, group }) => {
      const hash = upstream.unchangedFeeds.get(group.id);
      return hash !== undefined && !next.reuseFeed(og, group, hash);
    });
    for (const failure of await rereadFeeds(client, upstream, reread, { onParsed })) next.failFeed(failure);
    const snapshot = next.finish();
    await staged.add(next.takeChanged());
    await staged.flush();
    const finishedAt = now();
    const outcome = await knex.transaction(async (trx) => {
      // The fence: the lock kept other runs out only while its session lived.
      if (!(await runs.advanceSnapshot(trx, snapshotVersion))) throw new SupersededRunError();
      const { tally, rejected } = await writeChanges(trx, { snapshots, staged }, { previous, next: snapshot.entities, syncRunId: id, now: finishedAt });
      const errors = [...snapshot.failures.map((failure) => pairErrorOf(failure, finishedAt)), ...rejected];
      const status: SyncRunStatus = errors.length > 0 ? 'partial' : 'succeeded';
      const fingerprint = status === 'succeeded' ? fingerprintOf(upstream.bodies) : null;
      const feedRecords = feedRecordChanges(snapshot, storedFeeds, previous);
      await bodies.apply(trx, { ...listRowChanges(upstream.bodies, stored, status), feedUpserts: feedRecords.upserts, feedDeletes: feedRecords.deletes }, finishedAt);
      const left = String(BigInt(snapshotVersion) + 1n);
      await runs.record(trx, runRecord(id, startedAt, finishedAt, upstream.planningUnit.id, status, tally, snapshot.entities.size, null, fingerprint, left), errors);
      return { tally, errors, status, fingerprint };
    });
    this.deps.relay.wake();
    // The run has committed: a failed cleanup must not turn it into a failed run (the next run empties it too).
    await staged.clear().catch((error: unknown) => logger.warn({ err: error, syncRunId: id }, 'emptying the staging table failed'));
    const { tally, errors, status } = outcome;
    recordMetrics(tally, snapshot.entities.values(), finishedAt, errors.length);
    this.gaugedFingerprint = outcome.fingerprint;
    const read = { feedsParsed, feedsUnchanged: snapshot.reusedFeeds.size, upstreamUnchanged: false };
    recordFeedMetrics(read);
    logger.info(
      { syncRunId: id, pu: upstream.planningUnit.id, changes: tally.total, failures: errors.length, unmatched: snapshot.unmatchedOccurrences, ...read },
      'sync run committed',
    );
    const { created, updated, deleted } = tally;
    return { syncRunId: id, status, planningUnitId: upstream.planningUnit.id, created, updated, deleted, errors, ...read };
  }

  /**
   * Reads the last snapshot's keys, hashes and scopes, the data a build may keep as it was, and what each
   * stored feed's events were built from; empties the staging table, which may hold what an earlier run left
   * when it failed. The run holds the advisory lock, so the feed records are those whose hashes it compared.
   */
  private async startBuilding(runId: string, upstream: UpstreamSnapshot, failures: readonly ScopedFailure[]): Promise<Building> {
    await this.deps.staged.begin(runId);
    const failedPrograms = failures.filter((failure) => failure.pgid === null).map((failure) => programScope(failure.og));
    const [previous, feedRecords] = await Promise.all([
      this.deps.snapshots.loadIndex([
        { entityType: 'program' },
        ...(failedPrograms.length > 0 ? [{ entityType: 'instructor' as const, scopes: failedPrograms }] : []),
      ]),
      this.deps.bodies.loadFeedRecords(),
    ]);
    const counts = ScopeCounts.of(previous.values());
    return { previous, feedRecords, builder: new NextSnapshotBuilder({ upstream, failures, previous, counts, feedRecords }) };
  }

  /**
   * Every answer is the one the last complete run read, so building and diffing would give back the snapshot
   * as it is: record the run and stop, without loading the snapshot. Fenced like a commit of changes: were the
   * record written after another run committed, it would name the older answers as the snapshot's, and a later
   * run finding those answers again would take the snapshot for theirs.
   */
  private async commitUnchanged(
    id: string,
    startedAt: Date,
    finishedAt: Date,
    planningUnitId: number,
    { lastCommitted, snapshotVersion }: { lastCommitted: SyncRunRecord; snapshotVersion: string },
    feeds: { feedsParsed: number; feedsUnchanged: number },
    listRows?: ListRowChanges,
  ): Promise<SyncRunResult> {
    const run = runRecord(id, startedAt, finishedAt, planningUnitId, 'succeeded', NO_CHANGES, lastCommitted.entityCount, null, lastCommitted.upstreamFingerprint, snapshotVersion);
    const { knex, runs, bodies } = this.deps;
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
    const counting = this.gaugedFingerprint === lastCommitted.upstreamFingerprint ? undefined : this.deps.snapshots.countByType();
    const [, counts] = await Promise.all([record(), counting]);
    if (counts !== undefined) {
      for (const entityType of ENTITY_TYPES) syncEntitiesSeen.set({ entity_type: entityType }, counts.get(entityType) ?? 0);
      this.gaugedFingerprint = lastCommitted.upstreamFingerprint;
    }
    syncLastSuccess.set(finishedAt.getTime() / 1000);
    const read = { ...feeds, upstreamUnchanged: true };
    recordFeedMetrics(read);
    this.deps.logger.info({ syncRunId: id, pu: planningUnitId, ...read }, 'sync run found the upstream unchanged');
    return { syncRunId: id, status: 'succeeded', planningUnitId, ...NO_CHANGES, errors: [], ...read };
  }
}

interface Building {
  previous: Map<string, IndexedEntity>;
  /** pgid -> the stored feed record, with its derivation. */
  feedRecords: Map<number, FeedRecord>;
  builder: NextSnapshotBuilder;
}

const NO_CHANGES = { created: 0, updated: 0, deleted: 0 } as const;

interface ListRowChanges {
  lists: Map<string, string>;
  listsRead?: Set<string>;
}

/**
 * The list rows a committing run writes: those whose answer differs from the stored one and, for a run
 * without failures (which read every list), every list request read, so that rows of others are removed.
 */
function listRowChanges(read: SeenBodies, stored: StoredHashes, status: SyncRunStatus): ListRowChanges {
  const lists = [...read].filter(([request]) => request.startsWith('json?'));
  const changed = new Map(lists.filter(([request, hash]) => stored.lists.get(request) !== hash));
  return status === 'succeeded' ? { lists: changed, listsRead: new Set(lists.map(([request]) => request)) } : { lists: changed };
}

/**
 * What the last run read, when it read and committed everything (it stored a fingerprint): only then do the
 * stored hashes name every request a run would make if nothing changed.
 */
function lastCompleteRead(stored: StoredHashes, lastCommitted: SyncRunRecord | undefined): LastRead | undefined {
  if (lastCommitted?.status !== 'succeeded' || lastCommitted.upstreamFingerprint === null || lastCommitted.planningUnitId === null) return undefined;
  if (stored.lists.size === 0) return undefined;
  return { planningUnitId: lastCommitted.planningUnitId, lists: stored.lists, feeds: stored.feeds };
}
const NOTHING_READ = { feedsParsed: 0, feedsUnchanged: 0, upstreamUnchanged: false } as const;

/**
 * One hash over every answer of a run (request and body hash, in request order), the time zone feeds are
 * read in (part of each feed's hash), DERIVATION_VERSION and READ_VERSION.
 */
function fingerprintOf(bodies: SeenBodies): string {
  const hash = createHash('sha256').update(`v${DERIVATION_VERSION}\nr${READ_VERSION}\n`);
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

function runRecord(
  id: string,
  startedAt: Date,
  finishedAt: Date,
  planningUnitId: number | null,
  status: SyncRunStatus,
  counted: { created: number; updated: number; deleted: number },
  entityCount: number,
  errorMessage: string | null,
  upstreamFingerprint: string | null,
  snapshotVersion: string | null,
): SyncRunRecord {
  const { created, updated, deleted } = counted;
  return { id, startedAt, finishedAt, planningUnitId, status, created, updated, deleted, entityCount, errorMessage, upstreamFingerprint, snapshotVersion };
}

function recordMetrics(tally: ChangeTally, entities: Iterable<{ entityType: EntityType }>, finishedAt: Date, failures: number): void {
  for (const [key, count] of tally.byTypeAndAction) {
    const [entityType, action] = key.split('\t');
    syncChangesEmitted.inc({ entity_type: entityType, action }, count);
  }
  const seen = new Map<EntityType, number>(ENTITY_TYPES.map((type) => [type, 0]));
  for (const entity of entities) seen.set(entity.entityType, (seen.get(entity.entityType) ?? 0) + 1);
  for (const [entityType, count] of seen) syncEntitiesSeen.set({ entity_type: entityType }, count);
  syncLastSuccess.set(finishedAt.getTime() / 1000);
  if (failures > 0) syncPairFailures.inc(failures);
}
