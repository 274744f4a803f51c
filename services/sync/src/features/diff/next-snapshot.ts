/**
 * From what the upstream answered (and the last snapshot) to the complete next snapshot of entities. Feeds are
 * added one at a time as they arrive, so their occurrences are let go as soon as their events are built.
 */
import { buildEvents, type Lookups } from '../normalise/build-events.js';
import { normaliseCourses } from '../normalise/normalise-courses.js';
import { normalisePrograms } from '../normalise/normalise-programs.js';
import { normaliseInstructors, normaliseRooms } from '../normalise/normalise-resources.js';
import { snapshotKey, type NormalisedEntity } from '../normalise/normalised-entity.js';
import { NameLookup } from '../normalise/resolve-references.js';
import { groupsToRead, type ScopedFailure } from '../read/read-upstream.js';
import type { UpstreamPlanningGroup } from '../read/upstream-types.js';
import type { UpstreamSnapshot } from '../read/upstream-snapshot.js';
import type { FeedOccurrence } from '../validate/feed-occurrence.js';
import { contentHash } from './content-hash.js';
import type { IndexedEntity } from './diff-snapshots.js';
import { eventsByGroup, inputsOf, recordingLookups, stillMatches, type FeedRecord } from './feed-records.js';
import { failedScopesOf, implausiblyEmptyFeed, keepPrevious, type NextEntity } from './safety-valve.js';
import type { ScopeCounts } from './scope-counts.js';

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

