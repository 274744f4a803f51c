/** The snapshot: the last published version of every entity, with its hash and the scopes it came from. */
import type { EntityType } from '@timetable/contracts';
import type { Knex } from '@timetable/db';
import type { EntityChange, SnapshotEntry } from '../diff/diff-snapshots.js';
import { snapshotKey } from '../normalise/normalised-entity.js';

export interface StoredEntity extends SnapshotEntry {
  scopes: string[];
  updatedAt: Date;
}

interface SnapshotRow {
  entity_type: EntityType;
  entity_id: string;
  data: Record<string, unknown>;
  content_hash: string;
  scopes: string[];
  updated_at: Date;
}

const INSERT_CHUNK = 500;

const toEntity = (row: SnapshotRow): StoredEntity => ({
  entityType: row.entity_type,
  entityId: row.entity_id,
  data: row.data,
  contentHash: row.content_hash,
  scopes: row.scopes,
  updatedAt: row.updated_at,
});

export interface SnapshotStoreDeps {
  /** On the `sync` schema. */
  knex: Knex;
}

export class SnapshotStore {
  private readonly knex: Knex;

  constructor(deps: SnapshotStoreDeps) {
    this.knex = deps.knex;
  }

  async load(): Promise<Map<string, StoredEntity>> {
    const rows: SnapshotRow[] = await this.knex('snapshot_entities').select('*');
    return new Map(rows.map((row) => [snapshotKey(row.entity_type, row.entity_id), toEntity(row)]));
  }

  /** Entities per type, without reading their data. */
  async countByType(): Promise<Map<EntityType, number>> {
    const rows: { entity_type: EntityType; count: string }[] = await this.knex('snapshot_entities').select('entity_type').count({ count: '*' }).groupBy('entity_type');
    return new Map(rows.map((row) => [row.entity_type, Number(row.count)]));
  }

  async find(entityType: EntityType, entityId: string): Promise<StoredEntity | undefined> {
    const row: SnapshotRow | undefined = await this.knex('snapshot_entities').where({ entity_type: entityType, entity_id: entityId }).first();
    return row && toEntity(row);
  }

  /** Writes the changed entities and the scope changes of unchanged ones, inside the run's transaction. */
  async apply(
    trx: Knex.Transaction,
    changes: readonly EntityChange[],
    scopesByKey: ReadonlyMap<string, string[]>,
    rescoped: ReadonlyArray<{ entityType: EntityType; entityId: string; scopes: string[] }>,
    now: Date,
  ): Promise<void> {
    const upserts = changes.filter((change) => change.newData !== null);
    for (let index = 0; index < upserts.length; index += INSERT_CHUNK) {
      const rows = upserts.slice(index, index + INSERT_CHUNK).map((change) => ({
        entity_type: change.entityType,
        entity_id: change.entityId,
        data: JSON.stringify(change.newData),
        content_hash: change.contentHash,
        scopes: scopesByKey.get(snapshotKey(change.entityType, change.entityId)) ?? [],
        updated_at: now,
      }));
      await trx('snapshot_entities').insert(rows).onConflict(['entity_type', 'entity_id']).merge();
    }
    const deletedByType = new Map<EntityType, string[]>();
    for (const change of changes) {
      if (change.action === 'deleted') deletedByType.set(change.entityType, [...(deletedByType.get(change.entityType) ?? []), change.entityId]);
    }
    for (const [entityType, ids] of deletedByType) {
      await trx('snapshot_entities').where({ entity_type: entityType }).whereIn('entity_id', ids).delete();
    }
    for (const entity of rescoped) {
      await trx('snapshot_entities').where({ entity_type: entity.entityType, entity_id: entity.entityId }).update({ scopes: entity.scopes });
    }
  }
}
