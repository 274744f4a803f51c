import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityState } from '@timetable/contracts';
import { RefusedEventError } from '@timetable/events/testing';
import { RESPONSE_NAMESPACE } from '@timetable/cache';
import { startCatalog, stateOf, type CatalogHarness } from './support/catalog-harness.js';
import { events, ids, universityStates } from './support/university-fixture.js';

let catalog: CatalogHarness;

async function snapshot(): Promise<Record<string, unknown[]>> {
  const tables = ['programs', 'semesters', 'courses', 'rooms', 'instructors', 'events', 'occurrences', 'event_rooms', 'event_instructors'];
  const result: Record<string, unknown[]> = {};
  for (const table of tables) result[table] = await catalog.knex(table).select().orderByRaw('1, 2');
  return result;
}

beforeAll(async () => {
  catalog = await startCatalog();
  await catalog.publish(universityStates);
});

afterAll(() => catalog.close());

describe('projection of entity states', () => {
  it('materialises one occurrence row per expanded date, with link rows in upstream order', async () => {
    const occurrences = await catalog.knex('occurrences').where('event_id', ids.matheSpring).orderBy('start_time');
    expect(occurrences.map((row: { start_time: Date }) => row.start_time.toISOString())).toEqual([
      '2026-03-16T09:00:00.000Z',
      '2026-03-23T09:00:00.000Z',
      '2026-03-30T08:00:00.000Z',
      '2026-04-06T08:00:00.000Z',
    ]);
    const rooms = await catalog.knex('event_rooms').where('event_id', ids.uebungOnce).orderBy('position');
    expect(rooms.map((row: { room_id: string }) => row.room_id)).toEqual([ids.roomHoersaal, ids.roomA101]);
  });

  it('reads a wall-clock time that occurs twice as the earlier instant', async () => {
    const [row] = await catalog.knex('occurrences').where('event_id', ids.datenbankenFold);
    expect((row as { start_time: Date }).start_time.toISOString()).toBe('2026-10-25T00:30:00.000Z');
  });

  it('changes nothing when the same batch is replayed twice, and does not bump the cache version', async () => {
    const before = await snapshot();
    const version = await catalog.cache.version(RESPONSE_NAMESPACE);
    await catalog.publish(universityStates);
    await catalog.publish(universityStates);
    expect(await snapshot()).toEqual(before);
    expect(await catalog.cache.version(RESPONSE_NAMESPACE)).toBe(version);
  });

  it('applies only the last state of a key within one batch', async () => {
    const renamed = { ...events.uebungOnce, title: 'Zweiter Titel' };
    await catalog.publish([stateOf({ type: 'event', data: { ...events.uebungOnce, title: 'Erster Titel' } }), stateOf({ type: 'event', data: renamed })]);
    const row = await catalog.knex('events').where('id', ids.uebungOnce).first();
    expect(row.title).toBe('Zweiter Titel');
    await catalog.publish([stateOf({ type: 'event', data: events.uebungOnce })]);
  });

  it('on update keeps created_at, takes updated_at from the state, raises sequence, replaces occurrences and bumps the cache version', async () => {
    const before = await catalog.knex('events').where('id', ids.matheSpring).first();
    const version = await catalog.cache.version(RESPONSE_NAMESPACE);
    const moved = { ...events.matheSpring, dtstart: '2026-03-16T12:00:00', recurrenceRule: 'FREQ=WEEKLY;INTERVAL=1;UNTIL=20260323T110000Z' };
    await catalog.publish([stateOf({ type: 'event', data: moved, updatedAt: '2026-02-01T08:00:00.000Z' })]);
    const after = await catalog.knex('events').where('id', ids.matheSpring).first();
    expect(after.created_at).toEqual(before.created_at);
    expect(after.updated_at.toISOString()).toBe('2026-02-01T08:00:00.000Z');
    expect(after.sequence).toBe(before.sequence + 1);
    const starts = await catalog.knex('occurrences').where('event_id', ids.matheSpring).orderBy('start_time').pluck('start_time');
    expect(starts.map((start: Date) => start.toISOString())).toEqual(['2026-03-16T11:00:00.000Z', '2026-03-23T11:00:00.000Z']);
    expect(await catalog.cache.version(RESPONSE_NAMESPACE)).toBe(version + 1);
    await catalog.publish([stateOf({ type: 'event', data: events.matheSpring, updatedAt: '2026-02-02T08:00:00.000Z' })]);
  });

  it('deletes an event with its occurrences and links on a tombstone', async () => {
    await catalog.publish([{ tombstone: `event:${ids.orphanEvent}` }]);
    expect(await catalog.knex('events').where('id', ids.orphanEvent)).toHaveLength(0);
    expect(await catalog.knex('occurrences').where('event_id', ids.orphanEvent)).toHaveLength(0);
    await catalog.publish([stateOf({ type: 'event', data: events.orphanEvent })]);
    expect(await catalog.knex('occurrences').where('event_id', ids.orphanEvent)).toHaveLength(1);
  });

  it('skips a state whose data belongs to another key and still applies the rest of the batch', async () => {
    const room = stateOf({ type: 'room', data: { id: ids.roomA101, name: 'x', building: 'A', campus: 'N', capacity: 1, tags: [], upstreamId: 1 } });
    const misfiled = { ...room, entityId: randomUUID() };
    const fine = stateOf({ type: 'instructor', data: { id: ids.schmidt, name: 'Dr. Schmidt', email: 'schmidt@example.edu', tags: ['neu'], upstreamId: 4 } });
    await catalog.publish([misfiled, fine]);
    expect((await catalog.knex('rooms').where('id', ids.roomA101).first()).name).toBe('A 1.01');
    expect((await catalog.knex('rooms').where('id', misfiled.entityId).first())).toBeUndefined();
    expect((await catalog.knex('instructors').where('id', ids.schmidt).first()).tags).toEqual(['neu']);
  });

  it('never receives a state whose data fails its schema: the bus refuses it at publish, as Kafka does', async () => {
    const room = stateOf({ type: 'room', data: { id: ids.roomA101, name: 'x', building: 'A', campus: 'N', capacity: 1, tags: [], upstreamId: 1 } });
    const broken = { ...room, data: { id: ids.roomA101 } } as unknown as EntityState;
    await expect(catalog.publish([broken])).rejects.toThrow(RefusedEventError);
    expect((await catalog.knex('rooms').where('id', ids.roomA101).first()).name).toBe('A 1.01');
  });
});
