import type { EntityType } from '@timetable/contracts';

/** One canonical entity as sync derives it, before diffing. */
export interface NormalisedEntity {
  entityType: EntityType;
  entityId: string;
  data: Record<string, unknown>;
  /**
   * The upstream fetches it was derived from (`og:<id>` for a program's lists, `pair:<pgid>` for a group's
   * feed). When one of them fails, the previous version is kept (the safety valve).
   */
  scopes: string[];
  /** The content hash of `data`, when it is known already (an entity carried over unchanged from the snapshot). */
  contentHash?: string;
}

/** Scope strings, one per program or group and shared by all of its entities (there are many at scale). */
const scopes = new Map<string, string>();
function sharedScope(scope: string): string {
  const known = scopes.get(scope);
  if (known !== undefined) return known;
  if (scopes.size >= 100_000) scopes.clear();
  scopes.set(scope, scope);
  return scope;
}

export const programScope = (og: number): string => sharedScope(`og:${og}`);
export const pairScope = (pgid: number): string => sharedScope(`pair:${pgid}`);

/** Snapshot and diff key of an entity. */
export const snapshotKey = (entityType: string, entityId: string): string => `${entityType}:${entityId}`;
