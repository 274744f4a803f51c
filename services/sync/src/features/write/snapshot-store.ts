/** The snapshot: the last published version of every entity, with its hash and the scopes it came from. */
import type { EntityType } from '@timetable/contracts';
import type { Knex } from '@timetable/db';
import type { EntityChange, IndexedEntity, SnapshotEntry } from '../diff/diff-snapshots.js';
import { snapshotKey } from '../normalise/normalised-entity.js';
import { StringPool } from '../normalise/string-pool.js';
import { ScopeCounts } from '../diff/scope-counts.js';

export interface StoredEntity extends SnapshotEntry {
  scopes: string[];
  updatedAt: Date;
}

/** Which entities loadIndex reads the data of: every one of a type, or those with one of `scopes`. */
export interface DataWanted {
  entityType: EntityType;
  scopes?: readonly string[];
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

  async loadIndex(withData: readonly DataWanted[] = []): Promise<Map<string, IndexedEntity>> {
    const wanted = withData.map((want) =>
      want.scopes === undefined
        ? this.knex.raw('entity_type = ?', [want.entityType])
        : this.knex.raw('(entity_type = ? and scopes && ?::text[])', [want.entityType, [...want.scopes]]),
    );
    const data = wanted.length === 0 ? this.knex.raw('null::jsonb as data') : this.knex.raw(`case when ${wanted.map(() => '?').join(' or ')} then data end as data`, wanted);
    const rows: Omit<SnapshotRow, 'updated_at'>[] = await this.knex('snapshot_entities').select('entity_type', 'entity_id', 'content_hash', 'scopes', data);
    const index = new Map<string, IndexedEntity>();
    // Each row brings its own copy of the type and scope strings; the index keeps one of each.
    const pool = new StringPool();
    for (const row of rows) {
      const entityType = pool.share(row.entity_type);
      index.set(snapshotKey(entityType, row.entity_id), {
        entityType,
        entityId: row.entity_id,
        contentHash: row.content_hash,
        scopes: row.scopes.map((scope) => pool.share(scope)),
        data: row.data,
      });
    }
    return index;
  }

  /** The entities of `keys` that exist, with their data, by snapshotKey. */
  async loadEntities(db: Knex, keys: readonly { entityType: EntityType; entityId: string }[]): Promise<Map<string, StoredEntity>> {
    const rows: SnapshotRow[] = await selectByKeys(db, { table: 'snapshot_entities', columns: ['*'] }, keys);
    return new Map(rows.map((row) => [snapshotKey(row.entity_type, row.entity_id), toEntity(row)]));
  }

  /** Entities per type and per type and scope, as the safety valve counts them, without reading their data. */
  async scopeCounts(): Promise<ScopeCounts> {
    const rows: { entity_type: EntityType; scope: string | null; count: string }[] = (
      await this.knex.raw(
        `select entity_type, null as scope, count(*) as count from snapshot_entities group by entity_type
         union all
         select entity_type, scope, count(*) from snapshot_entities, unnest(scopes) as scope group by entity_type, scope`,
      )
    ).rows;
    const counts = new ScopeCounts();
    for (const row of rows) counts.add(row.entity_type, row.scope, Number(row.count));
    return counts;
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

  /** Writes changed entities (upserted with their scopes, or deleted), inside the run's transaction. */
  async write(trx: Knex.Transaction, changes: readonly EntityChange[], scopesByKey: ReadonlyMap<string, { scopes: string[] }>, now: Date): Promise<void> {
    const upserts = changes.filter((change) => change.newData !== null);
    for (let index = 0; index < upserts.length; index += INSERT_CHUNK) {
      const rows = upserts.slice(index, index + INSERT_CHUNK).map((change) => ({
        entity_type: change.entityType,
        entity_id: change.entityId,
        data: JSON.stringify(change.newData),
        content_hash: change.contentHash,
        scopes: scopesByKey.get(snapshotKey(change.entityType, change.entityId))?.scopes ?? [],
        updated_at: now,
      }));
      await trx('snapshot_entities').insert(rows).onConflict(['entity_type', 'entity_id']).merge();
    }
    for (const [entityType, ids] of idsByType(changes.filter((change) => change.action === 'deleted'))) {
      await trx('snapshot_entities').where({ entity_type: entityType }).whereRaw('entity_id = any(?::text[])', [ids]).delete();
    }
  }

  /** The new scopes of entities whose data did not change (e.g. a course now also listed by another program). */
  async rescope(trx: Knex.Transaction, entities: readonly { entityType: EntityType; entityId: string; scopes: string[] }[]): Promise<void> {
    for (const entity of entities) {
      await trx('snapshot_entities').where({ entity_type: entity.entityType, entity_id: entity.entityId }).update({ scopes: entity.scopes });
    }
  }
}

/**
 * Rows of `table` with the given keys: one `entity_id = any(...)` per type, which PostgreSQL answers from the
 * primary key (a list of (type, id) pairs is not always planned that way).
 */
export async function selectByKeys<Row>(db: Knex, query: KeyedSelect, keys: readonly { entityType: EntityType; entityId: string }[]): Promise<Row[]> {
  const { table, columns, alsoWhere = {} } = query;
  const rows: Row[] = [];
  for (const [entityType, ids] of idsByType(keys)) {
    rows.push(...((await db(table).select(columns).where({ ...alsoWhere, entity_type: entityType }).whereRaw('entity_id = any(?::text[])', [ids])) as Row[]));
  }
  return rows;
}

export interface KeyedSelect {
  table: string;
  columns: string[];
  /** Further equalities every row must meet (the staging table's run). */
  alsoWhere?: Record<string, string>;
}

function idsByType(keys: readonly { entityType: EntityType; entityId: string }[]): Map<EntityType, string[]> {
  const byType = new Map<EntityType, string[]>();
  for (const { entityType, entityId } of keys) {
    const ids = byType.get(entityType);
    if (ids) ids.push(entityId);
    else byType.set(entityType, [entityId]);
  }
  return byType;
}
