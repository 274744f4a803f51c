/** Each change becomes two outbox messages: the change record and the entity's new state (or a tombstone). */
import { randomUUID } from 'node:crypto';
import { entityKey, topics, type ChangeEvent, type CloudEventHeaders } from '@timetable/contracts';
import type { OutgoingEvent } from '@timetable/events';
import type { EntityChange } from '../diff/diff-snapshots.js';

export const CLOUDEVENTS_SOURCE = '/timetable/sync';

type Relations = Pick<ChangeEvent, 'programId' | 'semesterId' | 'courseId' | 'roomId' | 'instructorId'>;

const idOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const firstOf = (value: unknown): string | null => (Array.isArray(value) ? idOrNull(value[0]) : null);

/** What a change belongs to, for webhook scopes (docs/api.md, "Choices where the interface leaves room"). */
export function relationsOf(change: EntityChange): Relations {
  const data = change.newData ?? change.previousData ?? {};
  const none: Relations = { programId: null, semesterId: null, courseId: null, roomId: null, instructorId: null };
  switch (change.entityType) {
    case 'program':
      return { ...none, programId: change.entityId };
    case 'semester':
      return { ...none, programId: idOrNull(data.programId), semesterId: change.entityId };
    case 'academicPeriod':
      return { ...none, programId: idOrNull(data.programId), semesterId: idOrNull(data.semesterId) };
    case 'course':
      return { ...none, programId: idOrNull(data.programId), semesterId: idOrNull(data.semesterId), courseId: change.entityId };
    case 'event':
      return {
        programId: idOrNull(data.programId),
        semesterId: idOrNull(data.semesterId),
        courseId: idOrNull(data.courseId),
        roomId: firstOf(data.roomIds),
        instructorId: firstOf(data.instructorIds),
      };
    case 'room':
      return { ...none, roomId: change.entityId };
    case 'instructor':
      return { ...none, instructorId: change.entityId };
  }
}

export function changeMessages(change: EntityChange, syncRunId: string, now: Date): { record: ChangeEvent; events: OutgoingEvent[] } {
  const createdAt = now.toISOString();
  const key = entityKey(change.entityType, change.entityId);
  const record: ChangeEvent = {
    id: randomUUID(),
    entityType: change.entityType,
    entityId: change.entityId,
    action: change.action,
    previousData: change.previousData,
    newData: change.newData,
    changedFields: change.changedFields,
    ...relationsOf(change),
    createdAt,
    syncRunId,
  };
  // Typed by the topic's schema only once checked: the snapshot holds data as plain records (schema-guard.ts).
  const state =
    change.newData === null || change.contentHash === null
      ? null
      : { entityType: change.entityType, entityId: change.entityId, data: change.newData, contentHash: change.contentHash, updatedAt: createdAt };
  const headers = {
    ce_specversion: '1.0',
    ce_id: record.id,
    ce_type: `timetable.${change.entityType}.${change.action}`,
    ce_source: CLOUDEVENTS_SOURCE,
    ce_time: createdAt,
    'content-type': 'application/json',
  } satisfies CloudEventHeaders;
  return {
    record,
    events: [
      { topic: topics.changes.name, key, value: record, headers },
      { topic: topics.entities.name, key, value: state, headers },
    ],
  };
}
