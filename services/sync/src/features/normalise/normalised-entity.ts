import type { EntityType } from '@timetable/contracts';
import { StringPool } from './string-pool.js';

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
const scopes = new StringPool(100_000);

export const programScope = (og: number): string => scopes.share(`og:${og}`);
export const pairScope = (pgid: number): string => scopes.share(`pair:${pgid}`);

/** Snapshot and diff key of an entity. */
export const snapshotKey = (entityType: string, entityId: string): string => `${entityType}:${entityId}`;
