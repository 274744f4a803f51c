/**
 * Diffs the next snapshot against the last one and writes the result in chunks, inside the run's transaction:
 * per chunk, the previous data of what changed and its new data (from memory or staged) are read, the changes
 * are built and checked, and their snapshot rows and outbox messages are written. Only keys, hashes and scopes
 * of the whole snapshot are held at once.
 */
import type { EntityType } from '@timetable/contracts';
import type { Knex } from '@timetable/db';
import { appendToOutbox } from '@timetable/events';
import { diffSnapshots, type EntityChange } from '../diff/diff-snapshots.js';
import { snapshotKey } from '../normalise/normalised-entity.js';
import type { IndexedEntity } from '../diff/diff-snapshots.js';
import type { SnapshotStore } from './snapshot-store.js';
import type { StagedEntityStore } from './staged-entity-store.js';
import type { NextEntity } from '../diff/safety-valve.js';
import { guardChanges } from './schema-guard.js';
import type { PairError } from './sync-run-store.js';

/**
 * Changes built, checked and written at a time. Small enough that a chunk's garbage (messages, JSON, query
 * parameters) mostly dies young: with 1,000 a chunk outlived the young generation while its statements ran,
 * and V8 let the promoted garbage grow to three times the live heap before collecting it.
 */
const CHANGE_CHUNK = 250;

/** What the written changes add up to, for the run record and the metrics. */
export class ChangeTally {
  created = 0;
  updated = 0;
  deleted = 0;
  readonly byTypeAndAction = new Map<`${EntityType}\t${EntityChange['action']}`, number>();

  add(changes: readonly EntityChange[]): void {
    for (const change of changes) {
      this[change.action] += 1;
      const key = `${change.entityType}\t${change.action}` as const;
      this.byTypeAndAction.set(key, (this.byTypeAndAction.get(key) ?? 0) + 1);
    }
  }

  get total(): number {
    return this.created + this.updated + this.deleted;
  }
}

export interface WriteChangesInput {
  previous: ReadonlyMap<string, IndexedEntity>;
  next: ReadonlyMap<string, NextEntity>;
  syncRunId: string;
  now: Date;
}

/** Writes every change (and the scope changes of unchanged entities); returns the tally and the refused changes. */
export async function writeChanges(
  trx: Knex.Transaction,
  stores: { snapshots: SnapshotStore; staged: StagedEntityStore },
  { previous, next, syncRunId, now }: WriteChangesInput,
): Promise<{ tally: ChangeTally; rejected: PairError[] }> {
  const { snapshots } = stores;
  const tally = new ChangeTally();
  const rejected: PairError[] = [];
  const changed = changedKeysOf(previous, next);
  for (let index = 0; index < changed.length; index += CHANGE_CHUNK) {
    const chunk = changed.slice(index, index + CHANGE_CHUNK);
    const before = await snapshots.loadEntities(trx, chunk.flatMap((key) => previous.get(key) ?? []));
    const built = chunk.flatMap((key) => next.get(key) ?? []);
    // Only entities built in this run can differ from the snapshot: each carries its data or was staged.
    const staged = await stores.staged.load(trx, built.filter((entity) => entity.data === null));
    const after = new Map(built.map((entity) => {
      const key = snapshotKey(entity.entityType, entity.entityId);
      const data = entity.data ?? staged.get(key);
      if (data === undefined) throw new Error(`${key} changed but its data was neither built nor staged`);
      return [key, { ...entity, data }];
    }));
    const guarded = guardChanges(diffSnapshots(before, after), syncRunId, now);
    await snapshots.write(trx, guarded.accepted, next, now);
    await appendToOutbox(trx, guarded.messages);
    tally.add(guarded.accepted);
    rejected.push(...guarded.rejected);
  }
  await snapshots.rescope(trx, rescopedOf(previous, next));
  return { tally, rejected };
}

/** Keys of entities that are new, changed (by hash) or gone, in the order of `next`, then the gone ones. */
function changedKeysOf(previous: ReadonlyMap<string, IndexedEntity>, next: ReadonlyMap<string, NextEntity>): string[] {
  const keys: string[] = [];
  for (const [key, entity] of next) if (previous.get(key)?.contentHash !== entity.contentHash) keys.push(key);
  for (const key of previous.keys()) if (!next.has(key)) keys.push(key);
  return keys;
}

/**
 * Unchanged entities whose scopes moved (e.g. a course now also listed by another program); a changed one gets
 * its scopes with its data, and a refused change keeps its previous version, scopes included.
 */
function rescopedOf(previous: ReadonlyMap<string, IndexedEntity>, next: ReadonlyMap<string, NextEntity>): NextEntity[] {
  const rescoped: NextEntity[] = [];
  for (const [key, entity] of next) {
    const before = previous.get(key);
    if (before?.contentHash === entity.contentHash && before.scopes.join('\n') !== entity.scopes.join('\n')) rescoped.push(entity);
  }
  return rescoped;
}
