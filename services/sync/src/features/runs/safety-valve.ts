/**
 * The safety valve: an implausible answer counts as a failure, and whatever a failed fetch would have
 * produced keeps its previous version, so a bad upstream moment changes and emits nothing for it.
 */
import type { StoredEntity } from '../snapshot/snapshot-store.js';
import { pairScope, programScope, type NormalisedEntity } from '../normalise/normalised-entity.js';
import type { UpstreamSnapshot } from '../upstream-client/upstream-snapshot.js';
import type { ScopedFailure } from '../upstream-client/read-upstream.js';
import { UpstreamError } from '../upstream-client/upstream-error.js';

/** An empty list where the snapshot had at least this many entities is taken for an upstream fault. */
export const IMPLAUSIBLE_EMPTY_AFTER = 3;

function countByScope(previous: ReadonlyMap<string, StoredEntity>, entityType: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const entity of previous.values()) {
    if (entity.entityType !== entityType) continue;
    for (const scope of entity.scopes) counts.set(scope, (counts.get(scope) ?? 0) + 1);
  }
  return counts;
}

function countOfType(previous: ReadonlyMap<string, StoredEntity>, entityType: string): number {
  let count = 0;
  for (const entity of previous.values()) if (entity.entityType === entityType) count += 1;
  return count;
}

/** Global lists that came back empty abort the run; per-program and per-group ones become failures. */
export function rejectImplausible(upstream: UpstreamSnapshot, previous: ReadonlyMap<string, StoredEntity>): ScopedFailure[] {
  if (upstream.programs.length === 0 && countOfType(previous, 'program') >= IMPLAUSIBLE_EMPTY_AFTER) {
    throw new UpstreamError('upstream lists no programs although the snapshot has many');
  }
  if (upstream.rooms.length === 0 && countOfType(previous, 'room') >= IMPLAUSIBLE_EMPTY_AFTER) {
    throw new UpstreamError('upstream lists no rooms although the snapshot has many');
  }
  const failures: ScopedFailure[] = [];
  const semesters = countByScope(previous, 'semester');
  const instructors = countByScope(previous, 'instructor');
  for (const [og, groups] of upstream.groupsByProgram) {
    const lecturers = upstream.lecturersByProgram.get(og) ?? [];
    const emptyGroups = groups.length === 0 && (semesters.get(programScope(og)) ?? 0) >= IMPLAUSIBLE_EMPTY_AFTER;
    const emptyLecturers = lecturers.length === 0 && (instructors.get(programScope(og)) ?? 0) >= IMPLAUSIBLE_EMPTY_AFTER;
    if (!emptyGroups && !emptyLecturers) continue;
    failures.push({ og, pgid: null, message: `implausible answer: no ${emptyGroups ? 'planning groups' : 'lecturers'} for program ${og}` });
    upstream.groupsByProgram.delete(og);
    upstream.lecturersByProgram.delete(og);
  }
  const events = countByScope(previous, 'event');
  for (const [og, groups] of upstream.groupsByProgram) {
    for (const group of groups) {
      const feed = upstream.feeds.get(group.id);
      if (feed === undefined || feed.length > 0 || (events.get(pairScope(group.id)) ?? 0) < IMPLAUSIBLE_EMPTY_AFTER) continue;
      failures.push({ og, pgid: group.id, message: `implausible answer: empty calendar for planning group ${group.id}` });
      upstream.feeds.delete(group.id);
    }
  }
  return failures;
}

export function failedScopesOf(failures: readonly ScopedFailure[]): Set<string> {
  return new Set(failures.map((failure) => (failure.pgid === null ? programScope(failure.og) : pairScope(failure.pgid))));
}

/** Fresh entities, with previous versions kept for failed scopes and vanished programs deactivated. */
export function keepPrevious(
  fresh: ReadonlyMap<string, NormalisedEntity>,
  previous: ReadonlyMap<string, StoredEntity>,
  failedScopes: ReadonlySet<string>,
): Map<string, NormalisedEntity> {
  const next = new Map(fresh);
  for (const [key, entity] of previous) {
    const kept = { entityType: entity.entityType, entityId: entity.entityId, data: entity.data, scopes: entity.scopes };
    if (entity.scopes.some((scope) => failedScopes.has(scope))) next.set(key, kept);
    else if (entity.entityType === 'program' && !next.has(key)) next.set(key, { ...kept, data: { ...entity.data, isActive: false } });
  }
  return next;
}
