import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { topics } from '@timetable/contracts';
import type { EntityChange } from '../src/features/diff/diff-snapshots.js';
import { guardChanges } from '../src/features/write/schema-guard.js';

const NOW = new Date('2026-03-01T10:00:00.000Z');
const SYNC_RUN = randomUUID();

function created(entityType: EntityChange['entityType'], data: Record<string, unknown>): EntityChange {
  return { entityType, entityId: String(data.id), action: 'created', previousData: null, newData: data, changedFields: [], contentHash: 'h' };
}

const room = (capacity: unknown) => ({ id: randomUUID(), name: 'A 1.01', building: 'A', campus: 'Nord', capacity, tags: [], upstreamId: 3 });

describe('only changes whose messages match their topic schemas reach the outbox', () => {
  it('keeps a well-typed change with both its messages and reports a malformed one instead of emitting it', () => {
    const good = created('room', room(40));
    const bad = created('room', room('forty'));
    const guarded = guardChanges([good, bad], SYNC_RUN, NOW);
    expect(guarded.accepted).toEqual([good]);
    expect(guarded.messages.map((message) => [message.topic, message.key])).toEqual([
      [topics.changes.name, `room:${good.entityId}`],
      [topics.entities.name, `room:${good.entityId}`],
    ]);
    expect(guarded.rejected).toEqual([
      { errorMessage: expect.stringMatching(new RegExp(`^room ${bad.entityId} does not match the timetable.entities.v1 schema: .*capacity`)), programId: null, semesterId: null, occurredAt: NOW },
    ]);
  });

  it('names the program and semester of a refused event, but never a value that is no id', () => {
    const programId = randomUUID();
    const semesterId = randomUUID();
    const event = { id: randomUUID(), programId, semesterId, durationMinutes: 0 };
    const [refused] = guardChanges([created('event', event)], SYNC_RUN, NOW).rejected;
    expect(refused).toMatchObject({ programId, semesterId });
    const [garbled] = guardChanges([created('semester', { id: randomUUID(), programId: 'og-35' })], SYNC_RUN, NOW).rejected;
    expect(garbled).toMatchObject({ programId: null });
  });

  it('passes deletes, whose entity state is a tombstone', () => {
    const gone: EntityChange = { ...created('room', room('forty')), action: 'deleted', previousData: room('forty'), newData: null, contentHash: null };
    const guarded = guardChanges([gone], SYNC_RUN, NOW);
    expect(guarded.accepted).toEqual([gone]);
    expect(guarded.messages[1]?.value).toBeNull();
  });
});
