/**
 * From what the upstream answered (and the last snapshot) to the complete next snapshot of entities. Feeds are
 * added one at a time as they arrive, so their occurrences are let go as soon as their events are built.
 */
import { createHash } from 'node:crypto';
import { contentHash } from './content-hash.js';
import { normaliseCourses } from '../normalise/normalise-courses.js';
import { normalisePrograms } from '../normalise/normalise-programs.js';
import { normaliseInstructors, normaliseRooms } from '../normalise/normalise-resources.js';
import { pairScope, programScope, snapshotKey, type NormalisedEntity } from '../normalise/normalised-entity.js';
import type { FeedOccurrence } from '../validate/feed-occurrence.js';
import type { UpstreamPlanningGroup } from '../read/upstream-types.js';
import type { UpstreamSnapshot } from '../read/upstream-snapshot.js';
import { buildEvents, type Lookups } from '../normalise/build-events.js';
import { NameLookup, type NameResolver } from '../normalise/resolve-references.js';
import { ScopeCounts } from './scope-counts.js';
import type { IndexedEntity } from './diff-snapshots.js';
import type { Validators } from '../read/fetch-with-retry.js';
import { groupsToRead, type GroupToRead, type ScopedFailure } from '../read/read-upstream.js';
import { failedScopesOf, implausiblyEmptyFeed, keepPrevious, rejectImplausibleLists, type NextEntity } from './safety-valve.js';

/**
 * Raise it when validate or normalise change what a feed yields for the same input: every stored feed
 * record then stops matching, so the next run parses and builds every feed again. 2: VEVENTs checked at the
 * boundary (validate/check-feed.ts).
 */
export const DERIVATION_VERSION = 2;

/** What a group's events were built from besides the feed body, stored with the body hash (UpstreamBodyStore). */
export interface FeedDerivation {
  /** The program the group was built under (its events' `og:` scope). */
  og: number;
  /** Hash of DERIVATION_VERSION, the planning unit, the program and the group as getPgsExt lists it. */
  inputs: string;
  /** Room and lecturer names the feed used, with the upstream id each resolved to (null: none). */
  rooms: [string, number | null][];
  lecturers: [string, number | null][];
}

/** A group's feed as the snapshot's events of that group were built from it. */
export interface FeedRecord {
  bodyHash: string;
  derivation: FeedDerivation;
  /** What the feed's answer carried for a conditional request next time (nothing, from StarPlan). */
  validators?: Validators;
}

export interface NextSnapshot {
  /** Built entities carry their data; entities carried over unchanged carry it only if `previous` did. */
  entities: Map<string, NextEntity>;
  failures: ScopedFailure[];
  failedScopes: Set<string>;
  /** Feed occurrences that named no lecture of their group. */
  unmatchedOccurrences: number;
  /** Groups whose feed was parsed and built in this run, with what it was built from. */
  builtFeeds: Map<number, FeedRecord>;
  /** Groups whose unchanged feed kept the snapshot's events without being parsed. */
  reusedFeeds: Set<number>;
}

export interface SnapshotBuilderDeps {
  /** The lists as read, with rejectImplausibleLists already applied; not modified. */
  upstream: UpstreamSnapshot;
  /** Failures of the lists so far (fetch and safety valve). */
  failures: readonly ScopedFailure[];
  /** The last snapshot; the data of every program and of instructors in failed program scopes must be loaded. */
  previous: ReadonlyMap<string, IndexedEntity>;
  counts: ScopeCounts;
  /** pgid -> how the snapshot's events of that group were built; an unchanged feed whose record still matches keeps them. */
  feedRecords: ReadonlyMap<number, FeedRecord>;
}

/** The next snapshot, fed one group feed at a time: addFeed, reuseFeed, failFeed, then finish once. */
export class NextSnapshotBuilder {
  private readonly failures: ScopedFailure[];
  private readonly resources: Map<string, NextEntity>;
  private readonly lookups: Lookups;
  private readonly pu: number;
  /** pgid -> its events, built in this run or carried over, in the order they were added. */
  private readonly eventsByGroup = new Map<number, NextEntity[]>();
  private previousEvents: Map<number, IndexedEntity[]> | undefined;
  /** Entities built since takeChanged was last called. */
  private built: NextEntity[] = [];
  private readonly builtFeeds = new Map<number, FeedRecord>();
  private readonly reusedFeeds = new Set<number>();
  private unmatchedOccurrences = 0;

  constructor(private readonly deps: SnapshotBuilderDeps) {
    this.failures = [...deps.failures];
    this.pu = deps.upstream.planningUnit.id;
    // Instructors of a failed program are still known by their previous version; feeds elsewhere name them.
    const fresh = keyed([...normaliseRooms(deps.upstream.rooms), ...normaliseInstructors(deps.upstream)]);
    const resources = keepPrevious(fresh, previousOfTypes(deps.previous, ['room', 'instructor']), failedScopesOf(this.failures));
    this.resources = resources;
    this.lookups = { rooms: lookupOf(resources.values(), 'room'), lecturers: lookupOf(resources.values(), 'instructor') };
  }

  /** A parsed feed: its events are built now (or it counts as a failure when it is implausibly empty). */
  addFeed(og: number, group: UpstreamPlanningGroup, occurrences: readonly FeedOccurrence[]): void {
    const implausible = implausiblyEmptyFeed(og, group.id, occurrences.length, this.deps.counts);
    if (implausible) {
      this.failures.push(implausible);
      return;
    }
    const used = recordingLookups(this.lookups);
    const built = buildEvents({ pu: this.pu, og, group, occurrences }, used.lookups);
    this.unmatchedOccurrences += built.unmatched;
    const events = built.events.map(hashed);
    this.eventsByGroup.set(group.id, events);
    this.built.push(...events);
    const bodyHash = this.deps.upstream.feedHashes.get(group.id);
    if (bodyHash === undefined) return;
    const validators = this.deps.upstream.feedValidators.get(group.id);
    this.builtFeeds.set(group.id, {
      bodyHash,
      derivation: { og, inputs: inputsOf(this.pu, og, group), rooms: [...used.rooms], lecturers: [...used.lecturers] },
      ...(validators ? { validators } : {}),
    });
  }

  /**
   * A feed that hashed as `bodyHash` and was not parsed keeps the snapshot's events of its group if its record
   * says they were built from the same body and the same everything else; false: read it again and addFeed.
   */
  reuseFeed(og: number, group: UpstreamPlanningGroup, bodyHash: string): boolean {
    const record = this.deps.feedRecords.get(group.id);
    if (record === undefined || record.bodyHash !== bodyHash || !stillMatches(record.derivation, og, inputsOf(this.pu, og, group), this.lookups)) {
      return false;
    }
    this.previousEvents ??= eventsByGroup(this.deps.previous);
    this.eventsByGroup.set(group.id, (this.previousEvents.get(group.id) ?? []).map(carried));
    this.reusedFeeds.add(group.id);
    return true;
  }

  /**
   * The entities built since the last call (finish builds the catalog) that differ from the snapshot, with
   * their data; every entity built so far lets go of its data here. A caller that puts the data aside
   * (StagedEntityStore) keeps the run's memory to keys and hashes; one that never calls it keeps everything.
   */
  takeChanged(): (NextEntity & { data: Record<string, unknown> })[] {
    const changed: (NextEntity & { data: Record<string, unknown> })[] = [];
    for (const entity of this.built) {
      const { data } = entity;
      if (data !== null && this.deps.previous.get(snapshotKey(entity.entityType, entity.entityId))?.contentHash !== entity.contentHash) {
        changed.push({ ...entity, data });
      }
      entity.data = null;
    }
    this.built = [];
    return changed;
  }

  failFeed(failure: ScopedFailure): void {
    this.failures.push(failure);
  }

  finish(): NextSnapshot {
    const { upstream, previous } = this.deps;
    const failedScopes = failedScopesOf(this.failures);
    const fresh = keyed([...normalisePrograms(upstream, new Set(this.eventsByGroup.keys())), ...normaliseCourses(upstream)]);
    for (const [key, entity] of this.resources) fresh.set(key, entity);
    for (const entity of fresh.values()) if (entity.data !== null) this.built.push(entity);
    for (const { group } of groupsToRead(upstream.programs, upstream.groupsByProgram)) {
      for (const event of this.eventsByGroup.get(group.id) ?? []) fresh.set(snapshotKey(event.entityType, event.entityId), event);
    }
    this.eventsByGroup.clear();
    return {
      entities: keepPrevious(fresh, previous, failedScopes),
      failures: this.failures,
      failedScopes,
      unmatchedOccurrences: this.unmatchedOccurrences,
      builtFeeds: this.builtFeeds,
      reusedFeeds: this.reusedFeeds,
    };
  }
}

/** What an upstream read with every parsed feed in hand gives: for tests and tools that have the whole read. */
export interface WholeRead extends UpstreamSnapshot {
  /** pgid -> occurrences of each feed that was parsed. */
  feeds: Map<number, FeedOccurrence[]>;
}

/** The whole build at once; `feedsToReread` lists the unchanged feeds whose events could not be reused. */
export function buildNextSnapshot(
  read: WholeRead,
  fetchFailures: readonly ScopedFailure[],
  previous: ReadonlyMap<string, IndexedEntity>,
  feedRecords: ReadonlyMap<number, FeedRecord> = new Map(),
): NextSnapshot & { feedsToReread: GroupToRead[] } {
  // rejectImplausibleLists drops what it rejects from these maps; the caller may build again from the same read.
  const upstream: UpstreamSnapshot = { ...read, groupsByProgram: new Map(read.groupsByProgram), lecturersByProgram: new Map(read.lecturersByProgram) };
  const counts = ScopeCounts.of(previous.values());
  const failures = [...fetchFailures, ...rejectImplausibleLists(upstream, counts)];
  const builder = new NextSnapshotBuilder({ upstream, failures, previous, counts, feedRecords });
  const feedsToReread: GroupToRead[] = [];
  for (const { og, group } of groupsToRead(upstream.programs, upstream.groupsByProgram)) {
    const occurrences = read.feeds.get(group.id);
    const unchangedHash = upstream.unchangedFeeds.get(group.id);
    if (occurrences !== undefined) builder.addFeed(og, group, occurrences);
    else if (unchangedHash !== undefined && !builder.reuseFeed(og, group, unchangedHash)) feedsToReread.push({ og, group });
  }
  return { ...builder.finish(), feedsToReread };
}

/**
 * Which feed records to write and which to drop with this run's snapshot. A record must describe exactly how
 * the committed events of its group were built, or a later run would keep events it should have rebuilt:
 * a group built in this run gets a new record unless a failure kept some of its previous entities (then the
 * record is dropped and the group parsed next time); a reused group and a group whose fetch failed (its
 * previous events kept) keep theirs; every other record is dropped (its group is gone).
 */
export function feedRecordChanges(
  next: NextSnapshot,
  feedRecords: ReadonlyMap<number, FeedRecord>,
  previous: ReadonlyMap<string, Pick<IndexedEntity, 'entityType' | 'scopes'>>,
): { upserts: Map<number, FeedRecord>; deletes: number[] } {
  const touchedByFailure = (pgid: number, og: number | undefined): boolean =>
    next.failedScopes.has(pairScope(pgid)) || (og !== undefined && next.failedScopes.has(programScope(og)));
  const previousEvents = next.failedScopes.size > 0 ? eventsByGroup(previous) : new Map<number, Pick<IndexedEntity, 'scopes'>[]>();
  const keptEntities = (pgid: number) =>
    (previousEvents.get(pgid) ?? []).some((entity) => entity.scopes.some((scope) => next.failedScopes.has(scope)));
  const upserts = new Map<number, FeedRecord>();
  for (const [pgid, record] of next.builtFeeds) {
    const before = feedRecords.get(pgid);
    if (!touchedByFailure(pgid, record.derivation.og) && !touchedByFailure(pgid, before?.derivation.og) && !keptEntities(pgid)) {
      upserts.set(pgid, record);
    }
  }
  const deletes = [...feedRecords].flatMap(([pgid, record]) => {
    if (upserts.has(pgid)) return [];
    const keep = !next.builtFeeds.has(pgid) && (next.reusedFeeds.has(pgid) || touchedByFailure(pgid, record.derivation.og));
    return keep ? [] : [pgid];
  });
  return { upserts, deletes };
}

/** A freshly derived entity with its content hash, computed while its data is at hand. */
const hashed = (entity: NormalisedEntity): NextEntity => ({ ...entity, contentHash: entity.contentHash ?? contentHash(entity.data) });

const carried = ({ entityType, entityId, data, scopes, contentHash: hash }: IndexedEntity): NextEntity => ({ entityType, entityId, data, scopes, contentHash: hash });

const keyed = (entities: NormalisedEntity[]): Map<string, NextEntity> =>
  new Map(entities.map((entity) => [snapshotKey(entity.entityType, entity.entityId), hashed(entity)]));

function previousOfTypes(previous: ReadonlyMap<string, IndexedEntity>, types: readonly string[]): Map<string, IndexedEntity> {
  return new Map([...previous].filter(([, entity]) => types.includes(entity.entityType)));
}

function lookupOf(entities: Iterable<NextEntity>, entityType: 'room' | 'instructor'): NameLookup {
  const named: { name: string; upstreamId: number }[] = [];
  for (const entity of entities) {
    if (entity.entityType !== entityType) continue;
    if (entity.data === null) throw new Error(`the previous data of ${entityType} ${entity.entityId} was not loaded`);
    named.push({ name: String(entity.data.name), upstreamId: Number(entity.data.upstreamId) });
  }
  return new NameLookup(named);
}

function inputsOf(pu: number, og: number, group: UpstreamPlanningGroup): string {
  return createHash('sha256').update(JSON.stringify([DERIVATION_VERSION, pu, og, group])).digest('hex');
}

function stillMatches(derivation: FeedDerivation, og: number, inputs: string, lookups: Lookups): boolean {
  const resolvesAsBefore = (resolver: NameResolver, used: [string, number | null][]) =>
    used.every(([name, upstreamId]) => resolver.resolve([name])[0]?.upstreamId === upstreamId);
  return (
    derivation.og === og &&
    derivation.inputs === inputs &&
    resolvesAsBefore(lookups.rooms, derivation.rooms) &&
    resolvesAsBefore(lookups.lecturers, derivation.lecturers)
  );
}

/** Lookups that remember every name resolved through them, and to what. */
function recordingLookups(lookups: Lookups) {
  const rooms = new Map<string, number | null>();
  const lecturers = new Map<string, number | null>();
  const recording = (resolver: NameResolver, used: Map<string, number | null>): NameResolver => ({
    resolve(names) {
      const references = resolver.resolve(names);
      for (const reference of references) used.set(reference.name, reference.upstreamId);
      return references;
    },
  });
  return { rooms, lecturers, lookups: { rooms: recording(lookups.rooms, rooms), lecturers: recording(lookups.lecturers, lecturers) } };
}

/** The snapshot's events by the group whose feed they were built from. */
function eventsByGroup<T extends Pick<IndexedEntity, 'entityType' | 'scopes'>>(previous: ReadonlyMap<string, T>): Map<number, T[]> {
  const byGroup = new Map<number, T[]>();
  for (const entity of previous.values()) {
    if (entity.entityType !== 'event') continue;
    const pair = entity.scopes.find((scope) => scope.startsWith('pair:'));
    if (pair === undefined) continue;
    const pgid = Number(pair.slice('pair:'.length));
    const list = byGroup.get(pgid);
    if (list) list.push(entity);
    else byGroup.set(pgid, [entity]);
  }
  return byGroup;
}
