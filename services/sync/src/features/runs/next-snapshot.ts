/** From what the upstream answered (and the last snapshot) to the complete next snapshot of entities. */
import { createHash } from 'node:crypto';
import { normaliseCourses } from '../normalise/normalise-courses.js';
import { normalisePrograms } from '../normalise/normalise-programs.js';
import { normaliseInstructors, normaliseRooms } from '../normalise/normalise-resources.js';
import { pairScope, programScope, snapshotKey, type NormalisedEntity } from '../normalise/normalised-entity.js';
import type { UpstreamPlanningGroup } from '../upstream-client/upstream-types.js';
import type { UpstreamSnapshot } from '../upstream-client/upstream-snapshot.js';
import { buildEvents, type Lookups } from '../series/build-events.js';
import { NameLookup, type NameResolver } from '../series/resolve-references.js';
import type { StoredEntity } from '../snapshot/snapshot-store.js';
import type { Validators } from '../upstream-client/fetch-with-retry.js';
import type { ScopedFailure } from '../upstream-client/read-upstream.js';
import { failedScopesOf, keepPrevious, rejectImplausible } from './safety-valve.js';

/**
 * Raise it when normalise or series change what a feed yields for the same input: every stored feed record
 * then stops matching, so the next run parses and builds every feed again.
 */
export const DERIVATION_VERSION = 1;

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
  entities: Map<string, NormalisedEntity>;
  failures: ScopedFailure[];
  failedScopes: Set<string>;
  /** Feed occurrences that named no lecture of their group. */
  unmatchedOccurrences: number;
  /** Groups whose feed was parsed and built in this run, with what it was built from. */
  builtFeeds: Map<number, FeedRecord>;
  /** Groups whose unchanged feed kept the snapshot's events without being parsed. */
  reusedFeeds: Set<number>;
  /**
   * Unchanged feeds whose events cannot be reused (a name they use resolves differently now, the group's
   * lectures changed, ...): read them again with parsing (rereadFeeds) and build again.
   */
  feedsToReread: { og: number; pgid: number }[];
}

const keyed = (entities: NormalisedEntity[]): Map<string, NormalisedEntity> =>
  new Map(entities.map((entity) => [snapshotKey(entity.entityType, entity.entityId), entity]));

function lookupOf(entities: Iterable<NormalisedEntity>, entityType: 'room' | 'instructor'): NameLookup {
  return new NameLookup(
    [...entities]
      .filter((entity) => entity.entityType === entityType)
      .map((entity) => ({ name: String(entity.data.name), upstreamId: Number(entity.data.upstreamId) })),
  );
}

/**
 * `feedRecords` (pgid -> record) describe how the snapshot's events of each group were built; an unchanged
 * feed whose record still matches keeps those events as they are. `upstream` is not modified.
 */
export function buildNextSnapshot(
  read: UpstreamSnapshot,
  fetchFailures: readonly ScopedFailure[],
  previous: ReadonlyMap<string, StoredEntity>,
  feedRecords: ReadonlyMap<number, FeedRecord> = new Map(),
): NextSnapshot {
  // rejectImplausible drops what it rejects from these maps; the caller may build again from the same read.
  const upstream: UpstreamSnapshot = {
    ...read,
    groupsByProgram: new Map(read.groupsByProgram),
    lecturersByProgram: new Map(read.lecturersByProgram),
    feeds: new Map(read.feeds),
  };
  const failures = [...fetchFailures, ...rejectImplausible(upstream, previous)];
  const failedScopes = failedScopesOf(failures);
  const fresh = keyed([
    ...normalisePrograms(upstream),
    ...normaliseCourses(upstream),
    ...normaliseRooms(upstream.rooms),
    ...normaliseInstructors(upstream),
  ]);
  // Instructors of a failed program are still known by their previous version; feeds elsewhere name them.
  const resources = keepPrevious(fresh, previous, failedScopes).values();
  const catalog = [...resources];
  const lookups = { rooms: lookupOf(catalog, 'room'), lecturers: lookupOf(catalog, 'instructor') };
  const previousEvents = upstream.unchangedFeeds.size > 0 ? eventsByGroup(previous) : new Map<number, StoredEntity[]>();
  const pu = upstream.planningUnit.id;
  const next: Omit<NextSnapshot, 'entities'> = {
    failures,
    failedScopes,
    unmatchedOccurrences: 0,
    builtFeeds: new Map(),
    reusedFeeds: new Set(),
    feedsToReread: [],
  };
  const seenGroups = new Set<number>();
  for (const program of upstream.programs) {
    for (const group of upstream.groupsByProgram.get(program.id) ?? []) {
      if (seenGroups.has(group.id)) continue;
      const occurrences = upstream.feeds.get(group.id);
      const unchangedHash = upstream.unchangedFeeds.get(group.id);
      if (occurrences === undefined && unchangedHash === undefined) continue;
      seenGroups.add(group.id);
      const inputs = inputsOf(pu, program.id, group);
      if (occurrences === undefined) {
        const record = feedRecords.get(group.id);
        if (record === undefined || record.bodyHash !== unchangedHash || !stillMatches(record.derivation, program.id, inputs, lookups)) {
          next.feedsToReread.push({ og: program.id, pgid: group.id });
          continue;
        }
        for (const event of previousEvents.get(group.id) ?? []) {
          const { entityType, entityId, data, scopes, contentHash } = event;
          fresh.set(snapshotKey(entityType, entityId), { entityType, entityId, data, scopes, contentHash });
        }
        next.reusedFeeds.add(group.id);
        continue;
      }
      const used = recordingLookups(lookups);
      const built = buildEvents({ pu, og: program.id, group, occurrences }, used.lookups);
      next.unmatchedOccurrences += built.unmatched;
      for (const event of built.events) fresh.set(snapshotKey(event.entityType, event.entityId), event);
      const bodyHash = upstream.feedHashes.get(group.id);
      if (bodyHash !== undefined) {
        const validators = upstream.feedValidators.get(group.id);
        next.builtFeeds.set(group.id, {
          bodyHash,
          derivation: { og: program.id, inputs, rooms: [...used.rooms], lecturers: [...used.lecturers] },
          ...(validators ? { validators } : {}),
        });
      }
    }
  }
  return { entities: keepPrevious(fresh, previous, failedScopes), ...next };
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
  previous: ReadonlyMap<string, StoredEntity>,
): { upserts: Map<number, FeedRecord>; deletes: number[] } {
  const touchedByFailure = (pgid: number, og: number | undefined): boolean =>
    next.failedScopes.has(pairScope(pgid)) || (og !== undefined && next.failedScopes.has(programScope(og)));
  const previousEvents = next.failedScopes.size > 0 ? eventsByGroup(previous) : new Map<number, StoredEntity[]>();
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
function eventsByGroup(previous: ReadonlyMap<string, StoredEntity>): Map<number, StoredEntity[]> {
  const byGroup = new Map<number, StoredEntity[]>();
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
