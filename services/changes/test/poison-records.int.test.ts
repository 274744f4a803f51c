import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topics, type ChangeEvent } from '@timetable/contracts';
import { openTestBed, RECORD_ATTEMPTS, type ConsumerTestBed } from '@timetable/events/testing';
import type { ServiceModule } from '@timetable/http';
import { captureLogger, createStoreBehindProxy, testInfrastructure, type StoreBehindProxy } from '@timetable/testing';
import { CHANGES_SCHEMA, changesMigrations, createChangesService } from '../src/index.js';
import { CHANGES_GROUP_ID } from '../src/features/change-log/change-log-consumer.js';

/**
 * The change log's consumer, in both modes, meets a change it cannot store for a reason in its data (a
 * `createdAt` in year 0, which the schema's ISO format allows and PostgreSQL's timestamptz does not hold)
 * between good ones: it is put aside with its error and counted, and the changes after it are stored. With its
 * database away, a change waits and nothing is put aside.
 */
const { logger } = captureLogger('fatal');
const TOPIC = topics.changes.name;

function aChange(overrides: Partial<ChangeEvent> = {}): ChangeEvent {
  return {
    id: randomUUID(), entityType: 'room', entityId: randomUUID(), action: 'updated',
    previousData: { capacity: 40 }, newData: { capacity: 45 }, changedFields: ['capacity'],
    programId: null, semesterId: null, courseId: null, roomId: null, instructorId: null,
    createdAt: new Date().toISOString(), syncRunId: randomUUID(), ...overrides,
  };
}

const messageOf = (change: ChangeEvent) => ({ topic: TOPIC, key: `${change.entityType}:${change.entityId}`, value: change, headers: { ce_id: change.id } });

describe.each(['embedded', 'kafka'] as const)('the change log consumer in %s mode', (mode) => {
  let store: StoreBehindProxy;
  let bed: ConsumerTestBed;
  let service: ServiceModule;
  const storedIds = async (changes: ChangeEvent[]) => (await store.direct('changes').whereIn('id', changes.map((change) => change.id)).pluck('id')).sort();

  beforeAll(async () => {
    store = await createStoreBehindProxy(CHANGES_SCHEMA, changesMigrations, logger);
    const infra = testInfrastructure();
    bed = await openTestBed(mode === 'kafka'
      ? { mode, brokers: infra.kafkaBrokers, schemaRegistryUrl: infra.schemaRegistryUrl, logger }
      : { mode, connectionString: store.connectionString, logger });
    service = await createChangesService({ knex: store.knex, bus: bed.bus, logger });
    await service.start();
  });

  afterAll(async () => {
    await service?.stop();
    await bed?.close();
    await store?.close();
  });

  it('puts aside a change it cannot store, with its error, counts it, and stores the changes after it', async () => {
    const before = aChange();
    const refused = aChange({ createdAt: '0000-01-01T00:00:00.000Z' });
    const after = [aChange(), aChange()];
    await bed.publish([before, refused, ...after].map(messageOf));

    await expect.poll(() => storedIds([before, ...after]), { timeout: 60_000 }).toEqual([before, ...after].map((change) => change.id).sort());
    expect(await storedIds([refused])).toEqual([]);
    await expect.poll(() => bed.putAside(TOPIC), { timeout: 30_000 }).toHaveLength(1);
    const [aside] = await bed.putAside(TOPIC);
    expect(aside).toMatchObject({ key: `room:${refused.entityId}`, value: refused, attempts: RECORD_ATTEMPTS, headers: { ce_id: refused.id } });
    expect(aside?.error).toMatch(/date\/time field value out of range.*\[sqlstate 22008\]/);
    expect(await bed.countedPutAside(CHANGES_GROUP_ID, TOPIC)).toBe(1);
    await expect.poll(() => bed.backlog()).toBe(0);
  });

  it('waits while its database is away, then stores the change, and puts nothing aside', async () => {
    const retriesBefore = await bed.countedRetries(CHANGES_GROUP_ID, TOPIC);
    store.proxy.block();
    const change = aChange();
    try {
      await bed.publish([messageOf(change)]);
      await expect.poll(() => bed.countedRetries(CHANGES_GROUP_ID, TOPIC), { timeout: 30_000 }).toBeGreaterThanOrEqual(retriesBefore + 2);
      expect(await storedIds([change])).toEqual([]);
    } finally {
      store.proxy.unblock();
    }
    await expect.poll(() => storedIds([change]), { timeout: 60_000 }).toEqual([change.id]);
    expect(await bed.putAside(TOPIC)).toHaveLength(1);
    expect(await bed.countedPutAside(CHANGES_GROUP_ID, TOPIC)).toBe(1);
    await expect.poll(() => bed.backlog(), { timeout: 30_000 }).toBe(0);
  });
});
