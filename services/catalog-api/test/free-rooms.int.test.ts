import { randomUUID } from 'node:crypto';
import type { FreeRoomsResponse } from '@timetable/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCatalog, stateOf, type CatalogHarness } from './support/catalog-harness.js';
import { event, ids, universityStates } from './support/university-fixture.js';

let catalog: CatalogHarness;
const aula = randomUUID();
const z001 = randomUUID();

// The Übung (rooms Hörsaal and A 1.01) is the only occurrence on 25 March 2026: 13:00Z to 14:30Z.
const UEBUNG_START = '2026-03-25T13:00:00.000Z';
const UEBUNG_END = '2026-03-25T14:30:00.000Z';

async function free(query: string): Promise<FreeRoomsResponse['data']> {
  const { status, body } = await catalog.json<FreeRoomsResponse>(`/rooms/free?${query}`);
  expect(status, JSON.stringify(body)).toBe(200);
  return body.data;
}

const freeIds = async (from: string, to: string, extra = '') => (await free(`from=${from}&to=${to}${extra}`)).rooms.map((room) => room.id);

async function expectValidationError(query: string, field: string): Promise<void> {
  const { status, body } = await catalog.json<{ error: { code: string; message: string } }>(`/rooms/free${query}`);
  expect(status, query).toBe(400);
  expect(body.error.code).toBe('VALIDATION_ERROR');
  expect(body.error.message, query).toContain(field);
}

beforeAll(async () => {
  catalog = await startCatalog();
  await catalog.publish([
    ...universityStates,
    // Building and name orders differ: Aula (building C) sorts last, Z 0.01 (building A) among the A rooms.
    stateOf({ type: 'room', data: { id: aula, name: 'Aula', building: 'C', campus: 'Süd', capacity: 120, tags: [], upstreamId: 8 } }),
    stateOf({ type: 'room', data: { id: z001, name: 'Z 0.01', building: 'A', campus: 'Nord', capacity: 15, tags: [], upstreamId: 9 } }),
  ]);
});

afterAll(() => catalog.close());

describe('/rooms/free overlap rule', () => {
  it('lists every room, sorted by building then name, when nothing takes place', async () => {
    const data = await free('from=2026-03-25T11:00:00.000Z&to=2026-03-25T12:00:00.000Z');
    expect(data.period).toEqual({ from: '2026-03-25T11:00:00.000Z', to: '2026-03-25T12:00:00.000Z' });
    expect(data.rooms.map((room) => room.id)).toEqual([ids.roomA101, ids.roomA102, z001, ids.roomHoersaal, aula]);
    expect(data.rooms[4]).toEqual({ id: aula, name: 'Aula', building: 'C', campus: 'Süd', capacity: 120, tags: [] });
  });

  it('leaves out a room busy for any part of the window, each room of an event with several', async () => {
    const busyFree = [ids.roomA102, z001, aula];
    expect(await freeIds('2026-03-25T12:00:00Z', '2026-03-25T13:30:00Z')).toEqual(busyFree);
    expect(await freeIds('2026-03-25T13:30:00Z', '2026-03-25T14:00:00Z')).toEqual(busyFree);
    expect(await freeIds('2026-03-25T12:00:00Z', '2026-03-25T15:00:00Z')).toEqual(busyFree);
    expect(await freeIds('2026-03-25T14:29:59.999Z', '2026-03-25T16:00:00Z')).toEqual(busyFree);
  });

  it('does not count occurrences that end at from or start at to as overlaps', async () => {
    const everyRoom = [ids.roomA101, ids.roomA102, z001, ids.roomHoersaal, aula];
    expect(await freeIds(UEBUNG_END, '2026-03-25T16:00:00Z')).toEqual(everyRoom);
    expect(await freeIds('2026-03-25T11:00:00Z', UEBUNG_START)).toEqual(everyRoom);
  });

  it('accepts instants with an offset and answers the window in UTC', async () => {
    // 15:30+01:00 is the Übung's end.
    const data = await free('from=2026-03-25T15:30:00%2B01:00&to=2026-03-25T18:00:00%2B01:00');
    expect(data.period).toEqual({ from: UEBUNG_END, to: '2026-03-25T17:00:00.000Z' });
    expect(data.rooms).toHaveLength(5);
  });

  it('takes windows of exactly 14 days, across the DST change', async () => {
    // Mathe in A 1.01 on Mondays and the Übung in A 1.01 and the Hörsaal fall in these two weeks.
    expect(await freeIds('2026-03-23T00:00:00Z', '2026-04-06T00:00:00Z')).toEqual([ids.roomA102, z001, aula]);
  });
});

describe('/rooms/free filters', () => {
  const from = '2026-03-25T12:00:00Z';
  const to = '2026-03-25T13:30:00Z';

  it('filters by exact building', async () => {
    expect(await freeIds(from, to, '&building=A')).toEqual([ids.roomA102, z001]);
    expect(await freeIds(from, to, '&building=B')).toEqual([]);
    expect(await freeIds(from, to, '&building=a')).toEqual([]);
  });

  it('filters by minimum capacity, inclusive, and combines with building', async () => {
    expect(await freeIds(from, to, '&minCapacity=40')).toEqual([ids.roomA102, aula]);
    expect(await freeIds(from, to, '&minCapacity=41')).toEqual([aula]);
    expect(await freeIds(from, to, '&minCapacity=0')).toEqual([ids.roomA102, z001, aula]);
    expect(await freeIds(from, to, '&minCapacity=40&building=A')).toEqual([ids.roomA102]);
  });
});

describe('/rooms/free validation', () => {
  const from = '2026-03-25T12:00:00Z';

  it('answers 400 when from or to is missing or not an ISO instant', async () => {
    await expectValidationError('', 'from');
    await expectValidationError(`?from=${from}`, 'to');
    await expectValidationError(`?to=${from}`, 'from');
    for (const bad of ['tomorrow', '2026-03-25', '2026-03-25T12:00:00', '2026-13-25T12:00:00Z', '']) {
      await expectValidationError(`?from=${bad}&to=2026-03-26T12:00:00Z`, 'from');
    }
  });

  it('answers 400 for a reversed or empty window and for more than 14 days', async () => {
    await expectValidationError(`?from=${from}&to=2026-03-25T11:00:00Z`, 'to');
    await expectValidationError(`?from=${from}&to=${from}`, 'to');
    await expectValidationError(`?from=${from}&to=2026-04-08T12:00:00.001Z`, '14 days');
  });

  it('answers 400 for a building holding a NUL character, which no building can', async () => {
    await expectValidationError(`?from=${from}&to=2026-03-25T13:00:00Z&building=A%00`, 'building');
  });

  it('answers 400 for a minCapacity that is not a non-negative integer in the stored range', async () => {
    for (const bad of ['-1', 'x', '2.5', '99999999999']) await expectValidationError(`?from=${from}&to=2026-03-25T13:00:00Z&minCapacity=${bad}`, 'minCapacity');
  });
});

describe('/rooms/free routing and caching', () => {
  it('is not taken for a room id: the room routes keep working beside it', async () => {
    await expectValidationError('', 'from');
    expect((await catalog.json<{ data: { id: string } }>(`/rooms/${ids.roomA101}`)).body.data.id).toBe(ids.roomA101);
    expect((await catalog.get('/rooms/free/schedule')).status).toBe(404);
  });

  it('sends an ETag, answers 304, and shows a catalog change at once', async () => {
    const query = '/rooms/free?from=2026-03-27T08:00:00Z&to=2026-03-27T10:00:00Z';
    const first = await catalog.get(query);
    const etag = first.headers.get('etag') ?? '';
    expect(etag).not.toBe('');
    expect(((await first.json()) as FreeRoomsResponse).data.rooms.map((room) => room.id)).toContain(aula);
    expect((await catalog.get(query, { 'If-None-Match': etag })).status).toBe(304);
    const booked = event({ id: randomUUID(), courseId: ids.algorithmen, dtstart: '2026-03-27T10:00:00', roomIds: [aula] });
    await catalog.publish([stateOf({ type: 'event', data: booked })]);
    const after = await catalog.get(query, { 'If-None-Match': etag });
    expect(after.status).toBe(200);
    expect(((await after.json()) as FreeRoomsResponse).data.rooms.map((room) => room.id)).not.toContain(aula);
  });
});
