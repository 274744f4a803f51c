/**
 * One sync run: after a complete run, first whether every answer is the one it read (hashing only, and most
 * runs end there); otherwise read the lists, then the feeds (each built into events as it arrives), diff
 * against the last snapshot, and commit snapshot + run + outbox in one transaction.
 */
import { randomUUID } from 'node:crypto';
import { localDateOf } from '@timetable/calendar';
import type { Knex } from '@timetable/db';
import type { OutboxRelay } from '@timetable/events';
import type { Logger } from '@timetable/observability';
import type { IndexedEntity } from '../diff/diff-snapshots.js';
import type { FeedRecord } from '../diff/feed-records.js';
import { NextSnapshotBuilder, type NextSnapshot } from '../diff/next-snapshot.js';
import { listsLookEmpty, rejectImplausibleLists } from '../diff/safety-valve.js';
import { ScopeCounts } from '../diff/scope-counts.js';
import { programScope } from '../normalise/normalised-entity.js';
import { readAsStored, readPlanningUnits } from '../read/read-as-stored.js';
import { groupsToRead, readFeeds, readLists, rereadFeeds, type ReadFeedsOptions, type ScopedFailure } from '../read/read-upstream.js';
import type { StarplanClient } from '../read/starplan-client.js';
import type { UpstreamSnapshot } from '../read/upstream-snapshot.js';
import type { SnapshotStore } from '../write/snapshot-store.js';
import type { StagedEntityStore } from '../write/staged-entity-store.js';
import type { SyncRunRecord, SyncRunStore } from '../write/sync-run-store.js';
import type { StoredHashes, UpstreamBodyStore } from '../write/upstream-body-store.js';
import { withAdvisoryLock } from './advisory-lock.js';
import { commitChanges } from './commit-changes.js';
import { commitUnchanged, type FoundUnchanged } from './commit-unchanged.js';
import { syncRunDuration, syncRunsSuperseded, syncStoredAnswerChecks } from './metrics.js';
import { NO_CHANGES, NOTHING_READ, runRecord, SupersededRunError, type SyncRunResult } from './run-result.js';
import { EntityGauges, recordFeedMetrics } from './run-metrics.js';
import { fingerprintOf, lastCompleteRead, listRowChanges } from './stored-answers.js';

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

/** What a run knows from its start: the stored answers and the last committed run, with the snapshot's version. */
interface RunStart {
  id: string;
  startedAt: Date;
  now: () => Date;
  stored: StoredHashes;
  lastCommitted: SyncRunRecord | undefined;
  /** Every commit of the run, even of one that changed nothing, is fenced on it (SyncRunStore). */
  snapshotVersion: string;
}

/** What a run reads the lists for: the local date, a planning unit forced by configuration, the units read. */
type ListScope = Parameters<typeof readLists>[1];

export class SyncRunner {
  private inFlight: Promise<SyncRunResult> | undefined;
  private readonly gauges = new EntityGauges();

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
      const run = runRecord({ id, startedAt, finishedAt, planningUnitId: null, status: 'failed', counted: NO_CHANGES, entityCount: 0, errorMessage });
      await this.deps.runs.record(this.deps.knex, run, errors);
      endTimer({ status: 'failed' });
      if (error instanceof SupersededRunError) syncRunsSuperseded.inc();
      this.deps.logger.warn({ err: error, syncRunId: id }, 'sync run aborted without changes');
      return { syncRunId: id, status: 'failed', planningUnitId: null, ...NO_CHANGES, errors, ...NOTHING_READ };
    }
  }

  private async fetchAndCommit(id: string, startedAt: Date, now: () => Date): Promise<SyncRunResult> {
    const { client, runs, bodies, logger, timeZone } = this.deps;
    // Every run reads the planning units first, whatever the store holds, so they are asked for while the
    // store answers. Should the store fail first, their answer arriving later only fills the client's kept
    // lists, which any run may share.
    const [stored, { run: lastCommitted, snapshotVersion }, planningUnitsRead] = await Promise.all([
      bodies.loadHashes(),
      runs.lastCommitted(),
      readPlanningUnits(client),
    ]);
    const start: RunStart = { id, startedAt, now, stored, lastCommitted, snapshotVersion };
    const scope: ListScope = { today: localDateOf(startedAt, timeZone), forcedPlanningUnit: this.deps.planningUnit, planningUnitsRead };
    // After a complete run, first whether every answer is the one it read, decoding only the planning units:
    // most runs end here.
    const last = lastCompleteRead(stored, lastCommitted);
    const firstRead = last && (await readAsStored(client, last, scope));
    if (firstRead?.everyAnswerAsStored && lastCommitted?.upstreamFingerprint === fingerprintOf(firstRead.bodies)) {
      syncStoredAnswerChecks.inc({ outcome: 'unchanged' });
      client.keepListsRead(firstRead.bodies);
      const feeds = { feedsParsed: 0, feedsUnchanged: firstRead.feedsUnchanged };
      return this.commitUnchanged(start, { lastCommitted, planningUnitId: firstRead.planningUnit.id, feeds });
    }
    if (firstRead) {
      syncStoredAnswerChecks.inc({ outcome: 'changed' });
      logger.debug({ syncRunId: id, everyAnswerAsStored: firstRead.everyAnswerAsStored }, 'an answer differs from the last complete run\'s: reading the upstream as usual');
    }
    // Otherwise the usual read, which takes what the first one received rather than asking again.
    return this.readAndBuild(start, firstRead ? client.withReadAhead(firstRead.ahead) : client, scope);
  }

  private async readAndBuild(start: RunStart, reading: StarplanClient, scope: ListScope): Promise<SyncRunResult> {
    const { client, snapshots, staged } = this.deps;
    const { upstream, failures: fetchFailures } = await readLists(reading, scope);
    // The valve compares an empty list with the snapshot's counts; only then are they worth a query.
    const counts = listsLookEmpty(upstream) ? await snapshots.scopeCounts() : new ScopeCounts();
    const listFailures = [...fetchFailures, ...rejectImplausibleLists(upstream, counts)];
    // The last snapshot and the feeds' derivations are read only once a feed has to be built: a run that finds
    // every answer unchanged never needs them.
    let building: Promise<Building> | undefined;
    const builder = () => (building ??= this.startBuilding(start.id, upstream, listFailures));
    let feedsParsed = 0;
    const onParsed: ReadFeedsOptions['onParsed'] = async (og, group, occurrences) => {
      feedsParsed += 1;
      const { builder: next } = await builder();
      next.addFeed(og, group, occurrences);
      await staged.add(next.takeChanged());
    };
    const feedFailures = await readFeeds(reading, upstream, { knownFeeds: start.stored.feeds, onParsed });
    const { lastCommitted } = start;
    if (listFailures.length === 0 && feedFailures.length === 0 && lastCommitted?.status === 'succeeded' && lastCommitted.upstreamFingerprint === fingerprintOf(upstream.bodies)) {
      // A feed parsed without a record may have started building: nothing of it is needed now.
      if (building !== undefined) await staged.clear();
      // The first read would have ended the run had the stored list rows named every list read: they did not
      // (written by a version that lost rows), so they are put right with the run.
      const { lists, listsRead } = listRowChanges(upstream.bodies, start.stored, 'succeeded');
      const listRows = lists.size > 0 || start.stored.lists.size !== listsRead?.size ? { lists, listsRead } : undefined;
      const feeds = { feedsParsed, feedsUnchanged: upstream.unchangedFeeds.size };
      return this.commitUnchanged(start, { lastCommitted, planningUnitId: upstream.planningUnit.id, feeds, listRows });
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
    return this.commitBuilt(start, { upstream, snapshot, previous, storedFeeds, feedsParsed });
  }

  private async commitBuilt(start: RunStart, built: BuiltSnapshot): Promise<SyncRunResult> {
    const { logger, staged } = this.deps;
    const { id, startedAt, snapshotVersion, stored } = start;
    const { upstream, snapshot } = built;
    const finishedAt = start.now();
    const { tally, errors, status, fingerprint } = await commitChanges(this.deps, { id, startedAt, finishedAt, snapshotVersion, stored, ...built });
    this.deps.relay.wake();
    // The run has committed: a failed cleanup must not turn it into a failed run (the next run empties it too).
    await staged.clear().catch((error: unknown) => logger.warn({ err: error, syncRunId: id }, 'emptying the staging table failed'));
    this.gauges.committed(tally, { entities: snapshot.entities.values(), fingerprint }, { finishedAt, failures: errors.length });
    const read = { feedsParsed: built.feedsParsed, feedsUnchanged: snapshot.reusedFeeds.size, upstreamUnchanged: false };
    recordFeedMetrics(read);
    logger.info(
      { syncRunId: id, pu: upstream.planningUnit.id, changes: tally.total, failures: errors.length, unmatched: snapshot.unmatchedOccurrences, ...read },
      'sync run committed',
    );
    const { created, updated, deleted } = tally;
    return { syncRunId: id, status, planningUnitId: upstream.planningUnit.id, created, updated, deleted, errors, ...read };
  }

  private commitUnchanged(start: RunStart, found: FoundUnchanged): Promise<SyncRunResult> {
    const { id, startedAt, snapshotVersion } = start;
    return commitUnchanged({ ...this.deps, gauges: this.gauges }, { id, startedAt, finishedAt: start.now(), snapshotVersion, ...found });
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
}

interface Building {
  previous: Map<string, IndexedEntity>;
  /** pgid -> the stored feed record, with its derivation. */
  feedRecords: Map<number, FeedRecord>;
  builder: NextSnapshotBuilder;
}

interface BuiltSnapshot {
  upstream: UpstreamSnapshot;
  snapshot: NextSnapshot;
  previous: Map<string, IndexedEntity>;
  storedFeeds: Map<number, FeedRecord>;
  feedsParsed: number;
}
