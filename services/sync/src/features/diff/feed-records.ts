/**
 * How the snapshot's events of a group were built from its feed, stored with the feed's body hash: while the
 * record still matches, an unchanged feed keeps those events without being parsed again.
 */
import { createHash } from 'node:crypto';
import type { Lookups } from '../normalise/build-events.js';
import { pairScope, programScope } from '../normalise/normalised-entity.js';
import type { NameResolver } from '../normalise/resolve-references.js';
import type { Validators } from '../read/fetch-with-retry.js';
import type { UpstreamPlanningGroup } from '../read/upstream-types.js';
import type { IndexedEntity } from './diff-snapshots.js';
import type { NextSnapshot } from './next-snapshot.js';

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

/**
 * Which feed records to write and which to drop with this run's snapshot. A record must describe exactly how
 * the committed events of its group were built, or a later run would keep events it should have rebuilt:
 * a group built in this run gets a new record unless a failure kept some of its previous entities (then the
 * record is dropped and the group parsed next time); a reused group and a group whose fetch failed (its
 * previous events kept) keep theirs; every other record is dropped (its group is gone).
 */
export function feedRecordChanges(
  next: Pick<NextSnapshot, 'failedScopes' | 'builtFeeds' | 'reusedFeeds'>,
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

export function inputsOf(pu: number, og: number, group: UpstreamPlanningGroup): string {
  return createHash('sha256').update(JSON.stringify([DERIVATION_VERSION, pu, og, group])).digest('hex');
}

export function stillMatches(derivation: FeedDerivation, og: number, inputs: string, lookups: Lookups): boolean {
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
export function recordingLookups(lookups: Lookups) {
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
export function eventsByGroup<T extends Pick<IndexedEntity, 'entityType' | 'scopes'>>(previous: ReadonlyMap<string, T>): Map<number, T[]> {
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
