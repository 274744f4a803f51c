import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryCache } from '@timetable/cache';
import { entityKey, topics, type EntityState, type RoomData } from '@timetable/contracts';
import { openTestBed, RECORD_ATTEMPTS, type ConsumerTestBed } from '@timetable/events/testing';
import type { ServiceModule } from '@timetable/http';
import { captureLogger, createStoreBehindProxy, testInfrastructure, type StoreBehindProxy } from '@timetable/testing';
import { PROJECTION_GROUP_ID } from '../src/features/projection/projection-consumer.js';
import { CATALOG_SCHEMA, catalogMigrations, createCatalogService } from '../src/index.js';
import { ICAL_DOMAIN, stateOf, TIME_ZONE } from './support/catalog-harness.js';

/**
 * The catalog's projection, in both modes, meets an entity state it cannot apply for a reason in its data (a
 * room whose capacity the schema's integer allows and the integer column does not hold) between good ones: it
 * is put aside with its error and counted, and the states after it are projected. With its database away, a
 * state waits and nothing is put aside.
 */
const { logger } = captureLogger('fatal');
const TOPIC = topics.entities.name;

function aRoom(capacity = 40): EntityState {
  const data: RoomData = { id: randomUUID(), name: 'A 1.01', building: 'A', campus: 'Nord', capacity, tags: [], upstreamId: 311 };
  return stateOf({ type: 'room', data });
}

const messageOf = (state: EntityState) => ({ topic: TOPIC, key: entityKey(state.entityType, state.entityId), value: state, headers: { ce_id: randomUUID() } });

describe.each(['embedded', 'kafka'] as const)('the catalog projection in %s mode', (mode) => {
  let store: StoreBehindProxy;
  let bed: ConsumerTestBed;
  let service: ServiceModule;
  const projectedIds = async (states: EntityState[]) => (await store.direct('rooms').whereIn('id', states.map((state) => state.entityId)).pluck('id')).sort();

  beforeAll(async () => {
    store = await createStoreBehindProxy(CATALOG_SCHEMA, catalogMigrations, logger);
    const infra = testInfrastructure();
    bed = await openTestBed(mode === 'kafka'
      ? { mode, brokers: infra.kafkaBrokers, schemaRegistryUrl: infra.schemaRegistryUrl, logger }
      : { mode, connectionString: store.connectionString, logger });
    service = await createCatalogService({ knex: store.knex, bus: bed.bus, cache: new MemoryCache(), logger, timeZone: TIME_ZONE, icalDomain: ICAL_DOMAIN });
    await service.start();
  });

  afterAll(async () => {
    await service?.stop();
    await bed?.close();
    await store?.close();
  });

  it('puts aside a state it cannot apply, with its error, counts it, and projects the states after it', async () => {
    const before = aRoom();
    const refused = aRoom(3_000_000_000);
    const after = [aRoom(), aRoom()];
    const messages = [before, refused, ...after].map(messageOf);
    await bed.publish(messages);

    await expect.poll(() => projectedIds([before, ...after]), { timeout: 60_000 }).toEqual([before, ...after].map((state) => state.entityId).sort());
    expect(await projectedIds([refused])).toEqual([]);
    await expect.poll(() => bed.putAside(TOPIC), { timeout: 30_000 }).toHaveLength(1);
    const [aside] = await bed.putAside(TOPIC);
    expect(aside).toMatchObject({ key: `room:${refused.entityId}`, value: refused, attempts: RECORD_ATTEMPTS, headers: messages[1]!.headers });
    expect(aside?.error).toMatch(/out of range for type integer.*\[sqlstate 22003\]/);
    expect(await bed.countedPutAside(PROJECTION_GROUP_ID, TOPIC)).toBe(1);
    await expect.poll(() => bed.backlog()).toBe(0);
  });

  it('waits while its database is away, then projects the state, and puts nothing aside', async () => {
    const retriesBefore = await bed.countedRetries(PROJECTION_GROUP_ID, TOPIC);
    store.proxy.block();
    const room = aRoom();
    try {
      await bed.publish([messageOf(room)]);
      await expect.poll(() => bed.countedRetries(PROJECTION_GROUP_ID, TOPIC), { timeout: 30_000 }).toBeGreaterThanOrEqual(retriesBefore + 2);
      expect(await projectedIds([room])).toEqual([]);
    } finally {
      store.proxy.unblock();
    }
    await expect.poll(() => projectedIds([room]), { timeout: 60_000 }).toEqual([room.entityId]);
    expect(await bed.putAside(TOPIC)).toHaveLength(1);
    expect(await bed.countedPutAside(PROJECTION_GROUP_ID, TOPIC)).toBe(1);
    await expect.poll(() => bed.backlog(), { timeout: 30_000 }).toBe(0);
  });
});
