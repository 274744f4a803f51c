import { z } from 'zod';
import { entitySchemas, type EntityDataByType, type EntityType } from '../entities/entity-data.js';

const timestamp = z.iso.datetime({ offset: false });
const entityPayload = z.record(z.string(), z.unknown());

/** One record per detected difference; `id` is the change-log row id, the webhook dedupe id and `ce_id`. */
export const changeEvent = z.object({
  id: z.uuid(),
  entityType: z.string(),
  entityId: z.string(),
  action: z.enum(['created', 'updated', 'deleted']),
  previousData: entityPayload.nullable(),
  newData: entityPayload.nullable(),
  changedFields: z.array(z.string()),
  programId: z.uuid().nullable(),
  semesterId: z.uuid().nullable(),
  courseId: z.uuid().nullable(),
  roomId: z.uuid().nullable(),
  instructorId: z.uuid().nullable(),
  createdAt: timestamp,
  syncRunId: z.uuid(),
});

/** The state message of one entity type: its data typed by that type's schema. */
function stateOf<T extends EntityType, S extends z.ZodType<EntityDataByType[T]>>(entityType: T, data: S) {
  return z.object({
    entityType: z.literal(entityType),
    entityId: z.uuid(),
    data,
    contentHash: z.string().describe('Changes exactly when data changes; compare for equality only'),
    updatedAt: timestamp,
  });
}

/**
 * Current state of one entity, a union over the entity types: the registry's schema types every field, so
 * a malformed entity is refused when produced. The compacted topic keeps the latest per key; a null value
 * (tombstone) deletes it.
 */
export const entityState = z.discriminatedUnion('entityType', [
  stateOf('program', entitySchemas.program),
  stateOf('semester', entitySchemas.semester),
  stateOf('academicPeriod', entitySchemas.academicPeriod),
  stateOf('course', entitySchemas.course),
  stateOf('room', entitySchemas.room),
  stateOf('instructor', entitySchemas.instructor),
  stateOf('event', entitySchemas.event),
]);

/** A counted developer/webhook request, recorded by the gateway for developer-auth. */
export const usageEvent = z.object({
  id: z.uuid(),
  developerId: z.uuid(),
  endpoint: z.string(),
  statusCode: z.number().int(),
  occurredAt: timestamp,
});

export type ChangeEvent = z.infer<typeof changeEvent>;
export type EntityState = z.infer<typeof entityState>;
export type UsageEvent = z.infer<typeof usageEvent>;

export interface TopicDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  schema: S;
  /** Compacted topics keep the latest value per key and accept tombstones (null values). */
  compacted: boolean;
}

export const topics = {
  changes: { name: 'timetable.changes.v1', schema: changeEvent, compacted: false },
  entities: { name: 'timetable.entities.v1', schema: entityState, compacted: true },
  usage: { name: 'timetable.usage.v1', schema: usageEvent, compacted: false },
} as const satisfies Record<string, TopicDefinition>;

export const ALL_TOPICS: TopicDefinition[] = Object.values(topics);

/** The Kafka key of an entity's messages: same entity, same partition, so order holds per entity. */
export function entityKey(entityType: string, entityId: string): string {
  return `${entityType}:${entityId}`;
}
