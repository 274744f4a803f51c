/** Counts of the snapshot's entities the safety valve compares an answer with (diff/safety-valve.ts). */
import type { EntityType } from '@timetable/contracts';
import type { IndexedEntity } from './diff-snapshots.js';

/** How many entities the snapshot has per type, and per type and scope: all the valve needs of it. */
export class ScopeCounts {
  private readonly byType = new Map<string, number>();
  private readonly byScope = new Map<string, number>();

  add(entityType: EntityType, scope: string | null, count = 1): void {
    if (scope === null) this.byType.set(entityType, (this.byType.get(entityType) ?? 0) + count);
    else this.byScope.set(`${entityType}\t${scope}`, (this.byScope.get(`${entityType}\t${scope}`) ?? 0) + count);
  }

  ofType(entityType: EntityType): number {
    return this.byType.get(entityType) ?? 0;
  }

  inScope(entityType: EntityType, scope: string): number {
    return this.byScope.get(`${entityType}\t${scope}`) ?? 0;
  }

  static of(entities: Iterable<Pick<IndexedEntity, 'entityType' | 'scopes'>>): ScopeCounts {
    const counts = new ScopeCounts();
    for (const entity of entities) {
      counts.add(entity.entityType, null);
      for (const scope of entity.scopes) counts.add(entity.entityType, scope);
    }
    return counts;
  }
}
