import { entitySchemas, type EntityDataByType, type EntityState, type EntityType, type EventData } from '@timetable/contracts';
import type { IncomingEvent } from '@timetable/events';
import type { Logger } from '@timetable/observability';
import { rowOf, type Row } from './entity-rows.js';

export interface TypeChanges {
  upserts: Row[];
  deletes: string[];
}

/** A batch reduced to the final state per entity, grouped by type, with every row validated. */
export interface ProjectionBatch {
  byType: Map<EntityType, TypeChanges>;
  /** The upserted events' data, for materialising occurrences of those that really changed. */
  events: Map<string, EventData>;
}

function isEntityType(value: string): value is EntityType {
  return Object.hasOwn(entitySchemas, value);
}

function parseKey(key: string): { type: string; id: string } | null {
  const separator = key.indexOf(':');
  return separator > 0 ? { type: key.slice(0, separator), id: key.slice(separator + 1) } : null;
}

/**
 * Later states of the same key replace earlier ones, so a batch holding an entity's whole history
 * applies only its last state. Unknown types and data failing its schema are logged and skipped:
 * one bad state must not stall the projection.
 */
export function reduceBatch(events: readonly IncomingEvent<EntityState>[], logger: Logger): ProjectionBatch {
  const latest = new Map<string, IncomingEvent<EntityState>>();
  for (const event of events) {
    latest.delete(event.key);
    latest.set(event.key, event);
  }
  const batch: ProjectionBatch = { byType: new Map(), events: new Map() };
  for (const event of latest.values()) {
    const key = parseKey(event.key);
    if (!key || !isEntityType(key.type)) {
      logger.debug({ key: event.key }, 'skipping state of an entity type the catalog does not project');
      continue;
    }
    const changes = batch.byType.get(key.type) ?? { upserts: [], deletes: [] };
    batch.byType.set(key.type, changes);
    if (event.value === null) {
      changes.deletes.push(key.id);
      continue;
    }
    const parsed = entitySchemas[key.type].safeParse(event.value.data);
    if (!parsed.success || parsed.data.id !== key.id) {
      logger.warn({ key: event.key, reason: parsed.error?.message ?? 'id differs from key' }, 'skipping invalid entity state');
      continue;
    }
    const data = parsed.data as EntityDataByType[typeof key.type];
    changes.upserts.push(rowOf(key.type, data, event.value));
    if (key.type === 'event') batch.events.set(key.id, data as EventData);
  }
  return batch;
}
