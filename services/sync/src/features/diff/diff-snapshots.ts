/** The differences between the last snapshot and the new one, by content hash. */
import type { EntityType } from '@timetable/contracts';
import { contentHash, stableStringify } from './content-hash.js';

export interface SnapshotEntry {
  entityType: EntityType;
  entityId: string;
  data: Record<string, unknown>;
  contentHash: string;
}

/**
 * What a run needs of the last snapshot to diff against it: key, hash and scopes of every entity, and the
 * data only where asked for (null otherwise). At scale the data is most of the snapshot's size, and a run
 * needs it only for what changed (loadEntities) and for what it may keep as it was.
 */
export interface IndexedEntity {
  entityType: EntityType;
  entityId: string;
  contentHash: string;
  scopes: string[];
  data: Record<string, unknown> | null;
}

export interface EntityChange {
  entityType: EntityType;
  entityId: string;
  action: 'created' | 'updated' | 'deleted';
  previousData: Record<string, unknown> | null;
  newData: Record<string, unknown> | null;
  /** Top-level property names that differ; empty for created and deleted. */
  changedFields: string[];
  /** Hash of newData; null on delete. */
  contentHash: string | null;
}

/**
 * Both maps are keyed by `<entityType>:<entityId>`; a `next` entry carries its hash only when it is known
 * already (carried over unchanged), else it is computed here.
 */
export function diffSnapshots(
  previous: ReadonlyMap<string, SnapshotEntry>,
  next: ReadonlyMap<string, Omit<SnapshotEntry, 'contentHash'> & { contentHash?: string | undefined }>,
): EntityChange[] {
  const changes: EntityChange[] = [];
  for (const [key, entry] of next) {
    const hash = entry.contentHash ?? contentHash(entry.data);
    const before = previous.get(key);
    if (!before) {
      changes.push({ ...identity(entry), action: 'created', previousData: null, newData: entry.data, changedFields: [], contentHash: hash });
    } else if (before.contentHash !== hash) {
      const changedFields = changedFieldsOf(before.data, entry.data);
      changes.push({ ...identity(entry), action: 'updated', previousData: before.data, newData: entry.data, changedFields, contentHash: hash });
    }
  }
  for (const [key, before] of previous) {
    if (!next.has(key)) {
      changes.push({ ...identity(before), action: 'deleted', previousData: before.data, newData: null, changedFields: [], contentHash: null });
    }
  }
  return changes;
}

function identity(entry: { entityType: EntityType; entityId: string }): { entityType: EntityType; entityId: string } {
  return { entityType: entry.entityType, entityId: entry.entityId };
}

export function changedFieldsOf(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys]
    .filter((key) => Object.hasOwn(before, key) !== Object.hasOwn(after, key) || stableStringify(before[key]) !== stableStringify(after[key]))
    .sort();
}
