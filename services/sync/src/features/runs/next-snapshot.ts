/** From what the upstream answered (and the last snapshot) to the complete next snapshot of entities. */
import { normaliseCourses } from '../normalise/normalise-courses.js';
import { normalisePrograms } from '../normalise/normalise-programs.js';
import { normaliseInstructors, normaliseRooms } from '../normalise/normalise-resources.js';
import { snapshotKey, type NormalisedEntity } from '../normalise/normalised-entity.js';
import type { UpstreamSnapshot } from '../upstream-client/upstream-snapshot.js';
import { buildEvents } from '../series/build-events.js';
import { NameLookup } from '../series/resolve-references.js';
import type { StoredEntity } from '../snapshot/snapshot-store.js';
import type { ScopedFailure } from '../upstream-client/read-upstream.js';
import { failedScopesOf, keepPrevious, rejectImplausible } from './safety-valve.js';

export interface NextSnapshot {
  entities: Map<string, NormalisedEntity>;
  failures: ScopedFailure[];
  /** Feed occurrences that named no lecture of their group. */
  unmatchedOccurrences: number;
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

export function buildNextSnapshot(
  upstream: UpstreamSnapshot,
  fetchFailures: readonly ScopedFailure[],
  previous: ReadonlyMap<string, StoredEntity>,
): NextSnapshot {
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
  let unmatchedOccurrences = 0;
  const seenGroups = new Set<number>();
  for (const program of upstream.programs) {
    for (const group of upstream.groupsByProgram.get(program.id) ?? []) {
      const occurrences = upstream.feeds.get(group.id);
      if (occurrences === undefined || seenGroups.has(group.id)) continue;
      seenGroups.add(group.id);
      const built = buildEvents({ pu: upstream.planningUnit.id, og: program.id, group, occurrences }, lookups);
      unmatchedOccurrences += built.unmatched;
      for (const event of built.events) fresh.set(snapshotKey(event.entityType, event.entityId), event);
    }
  }
  return { entities: keepPrevious(fresh, previous, failedScopes), failures, unmatchedOccurrences };
}
