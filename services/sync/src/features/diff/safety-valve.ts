/**
 * The safety valve: an implausible answer counts as a failure, and whatever a failed fetch would have
 * produced keeps its previous version, so a bad upstream moment changes and emits nothing for it.
 */
import type { EntityType } from '@timetable/contracts';
import { pairScope, programScope } from '../normalise/normalised-entity.js';
import type { UpstreamSnapshot } from '../read/upstream-snapshot.js';
import type { ScopedFailure } from '../read/read-upstream.js';
import { UpstreamError } from '../read/upstream-error.js';
import type { IndexedEntity } from './diff-snapshots.js';
import type { ScopeCounts } from './scope-counts.js';
import { contentHash } from './content-hash.js';

/** An empty list where the snapshot had at least this many entities is taken for an upstream fault. */
export const IMPLAUSIBLE_EMPTY_AFTER = 3;

/**
 * Global lists that came back empty abort the run (they throw); a program whose groups or lecturers came back
 * empty becomes a failure, and its lists are dropped from `upstream` so none of its groups is read.
 */
export function rejectImplausibleLists(upstream: UpstreamSnapshot, counts: ScopeCounts): ScopedFailure[] {
  if (upstream.programs.length === 0 && counts.ofType('program') >= IMPLAUSIBLE_EMPTY_AFTER) {
    throw new UpstreamError('upstream lists no programs although the snapshot has many');
  }
  if (upstream.rooms.length === 0 && counts.ofType('room') >= IMPLAUSIBLE_EMPTY_AFTER) {
    throw new UpstreamError('upstream lists no rooms although the snapshot has many');
  }
  const failures: ScopedFailure[] = [];
  for (const [og, groups] of upstream.groupsByProgram) {
    const lecturers = upstream.lecturersByProgram.get(og) ?? [];
    const emptyGroups = groups.length === 0 && counts.inScope('semester', programScope(og)) >= IMPLAUSIBLE_EMPTY_AFTER;
    const emptyLecturers = lecturers.length === 0 && counts.inScope('instructor', programScope(og)) >= IMPLAUSIBLE_EMPTY_AFTER;
    if (!emptyGroups && !emptyLecturers) continue;
    failures.push({ og, pgid: null, message: `implausible answer: no ${emptyGroups ? 'planning groups' : 'lecturers'} for program ${og}` });
    upstream.groupsByProgram.delete(og);
    upstream.lecturersByProgram.delete(og);
  }
  return failures;
}

/** An empty feed of a group that had many events is a failure of that group, not the end of its events. */
export function implausiblyEmptyFeed(og: number, pgid: number, occurrences: number, counts: ScopeCounts): ScopedFailure | undefined {
  if (occurrences > 0 || counts.inScope('event', pairScope(pgid)) < IMPLAUSIBLE_EMPTY_AFTER) return undefined;
  return { og, pgid, message: `implausible answer: empty calendar for planning group ${pgid}` };
}

export function failedScopesOf(failures: readonly ScopedFailure[]): Set<string> {
  return new Set(failures.map((failure) => (failure.pgid === null ? programScope(failure.og) : pairScope(failure.pgid))));
}

/** An entity of the snapshot being built; `data` is null for one carried over unchanged without reading its data. */
export interface NextEntity {
  entityType: EntityType;
  entityId: string;
  data: Record<string, unknown> | null;
  scopes: string[];
  contentHash: string;
}

/**
 * Fresh entities, with previous versions kept for failed scopes and vanished programs deactivated (the
 * previous entry of every program must carry its data). A program missing because its record was refused at
 * the boundary failed its own scope: it is kept as it was, not deactivated.
 */
export function keepPrevious(
  fresh: ReadonlyMap<string, NextEntity>,
  previous: ReadonlyMap<string, IndexedEntity>,
  failedScopes: ReadonlySet<string>,
): Map<string, NextEntity> {
  const next = new Map(fresh);
  for (const [key, entity] of previous) {
    const kept = { entityType: entity.entityType, entityId: entity.entityId, data: entity.data, scopes: entity.scopes, contentHash: entity.contentHash };
    if (failedScopes.size > 0 && entity.scopes.some((scope) => failedScopes.has(scope))) next.set(key, kept);
    else if (entity.entityType === 'program' && !next.has(key)) {
      if (entity.data === null) throw new Error(`the previous data of program ${entity.entityId} was not loaded`);
      if (failedScopes.has(programScope(Number(entity.data.upstreamId)))) {
        next.set(key, kept);
        continue;
      }
      const data = { ...entity.data, isActive: false };
      next.set(key, { ...kept, data, contentHash: contentHash(data) });
    }
  }
  return next;
}

/** Whether rejectImplausibleLists has anything to judge: only an empty list can be implausible. */
export function listsLookEmpty(upstream: UpstreamSnapshot): boolean {
  if (upstream.programs.length === 0 || upstream.rooms.length === 0) return true;
  for (const [og, groups] of upstream.groupsByProgram) {
    if (groups.length === 0 || (upstream.lecturersByProgram.get(og) ?? []).length === 0) return true;
  }
  return false;
}
