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

export const programScope = (og: number): string => `og:${og}`;
export const pairScope = (pgid: number): string => `pair:${pgid}`;

/** Snapshot and diff key of an entity. */
export const snapshotKey = (entityType: string, entityId: string): string => `${entityType}:${entityId}`;
