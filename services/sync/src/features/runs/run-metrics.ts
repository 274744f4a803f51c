/** What a run puts in the sync's metrics once it has committed. */
import { ENTITY_TYPES, type EntityType } from '@timetable/contracts';
import type { ChangeTally } from '../write/write-changes.js';
import { syncChangesEmitted, syncEntitiesSeen, syncFeedsRead, syncLastSuccess, syncPairFailures } from './metrics.js';
import type { FeedsRead } from './run-result.js';

export function recordFeedMetrics(read: FeedsRead): void {
  syncFeedsRead.inc({ outcome: 'parsed' }, read.feedsParsed);
  syncFeedsRead.inc({ outcome: 'unchanged' }, read.feedsUnchanged);
}

/**
 * The gauge of the snapshot's entities by type, and which snapshot it last counted (by its fingerprint; null:
 * a run that committed with failures). The same fingerprint means the same snapshot, so a run that found the
 * upstream unchanged need not count it again.
 */
export class EntityGauges {
  private countedFingerprint: string | null | undefined;

  /** A run committed what it built: changes, failures and the entities of the new snapshot. */
  committed(
    tally: ChangeTally,
    snapshot: { entities: Iterable<{ entityType: EntityType }>; fingerprint: string | null },
    { finishedAt, failures }: { finishedAt: Date; failures: number },
  ): void {
    for (const [key, count] of tally.byTypeAndAction) {
      const [entityType, action] = key.split('\t');
      syncChangesEmitted.inc({ entity_type: entityType, action }, count);
    }
    const seen = new Map<EntityType, number>(ENTITY_TYPES.map((type) => [type, 0]));
    for (const entity of snapshot.entities) seen.set(entity.entityType, (seen.get(entity.entityType) ?? 0) + 1);
    this.set(snapshot.fingerprint, seen);
    syncLastSuccess.set(finishedAt.getTime() / 1000);
    if (failures > 0) syncPairFailures.inc(failures);
  }

  /** Whether the snapshot of this fingerprint still has to be counted (a restarted process has counted none). */
  needsCount(fingerprint: string | null): boolean {
    return this.countedFingerprint !== fingerprint;
  }

  set(fingerprint: string | null, counts: ReadonlyMap<EntityType, number>): void {
    for (const entityType of ENTITY_TYPES) syncEntitiesSeen.set({ entity_type: entityType }, counts.get(entityType) ?? 0);
    this.countedFingerprint = fingerprint;
  }
}
