import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topics, type UsageEvent } from '@timetable/contracts';
import type { EventConsumer } from '@timetable/events';
import { openTestBed, RECORD_ATTEMPTS, type ConsumerTestBed } from '@timetable/events/testing';
import { captureLogger, createStoreBehindProxy, testInfrastructure, type StoreBehindProxy } from '@timetable/testing';
import { subscribeUsage, USAGE_GROUP_ID } from '../src/features/usage/usage-consumer.js';
import { UsageStore } from '../src/features/usage/usage-store.js';
import { DEVELOPER_AUTH_SCHEMA, developerAuthMigrations } from '../src/index.js';

/**
 * The usage consumer, in both modes, meets a usage event it cannot store for a reason in its data (a status
 * code the schema's integer allows and the integer column does not hold) between good ones: it is put aside
 * with its error and counted, and the events after it are stored. With its database away, an event waits and
 * nothing is put aside.
 */
const { logger } = captureLogger('fatal');
const TOPIC = topics.usage.name;
const developerId = randomUUID();

function aUsageEvent(overrides: Partial<UsageEvent> = {}): UsageEvent {
  return { id: randomUUID(), developerId, endpoint: 'GET /v1/timetable/rooms', statusCode: 200, occurredAt: new Date().toISOString(), ...overrides };
}

const messageOf = (event: UsageEvent) => ({ topic: TOPIC, key: event.developerId, value: event });

describe.each(['embedded', 'kafka'] as const)('the usage consumer in %s mode', (mode) => {
  let store: StoreBehindProxy;
  let bed: ConsumerTestBed;
  let consumer: EventConsumer;
  const storedIds = async (events: UsageEvent[]) => (await store.direct('usage_events').whereIn('id', events.map((event) => event.id)).pluck('id')).sort();

  beforeAll(async () => {
    store = await createStoreBehindProxy(DEVELOPER_AUTH_SCHEMA, developerAuthMigrations, logger);
    const infra = testInfrastructure();
    bed = await openTestBed(mode === 'kafka'
      ? { mode, brokers: infra.kafkaBrokers, schemaRegistryUrl: infra.schemaRegistryUrl, logger }
      : { mode, connectionString: store.connectionString, logger });
    consumer = subscribeUsage(bed.bus, new UsageStore({ knex: store.knex }));
    await consumer.start();
  });

  afterAll(async () => {
    await consumer?.stop();
    await bed?.close();
    await store?.close();
  });

  it('puts aside a usage event it cannot store, with its error, counts it, and stores the events after it', async () => {
    const before = aUsageEvent();
    const refused = aUsageEvent({ statusCode: 3_000_000_000 });
    const after = [aUsageEvent(), aUsageEvent()];
    await bed.publish([before, refused, ...after].map(messageOf));

    await expect.poll(() => storedIds([before, ...after]), { timeout: 60_000 }).toEqual([before, ...after].map((event) => event.id).sort());
    expect(await storedIds([refused])).toEqual([]);
    await expect.poll(() => bed.putAside(TOPIC), { timeout: 30_000 }).toHaveLength(1);
    const [aside] = await bed.putAside(TOPIC);
    expect(aside).toMatchObject({ key: developerId, value: refused, attempts: RECORD_ATTEMPTS });
    expect(aside?.error).toMatch(/out of range for type integer.*\[sqlstate 22003\]/);
    expect(await bed.countedPutAside(USAGE_GROUP_ID, TOPIC)).toBe(1);
    await expect.poll(() => bed.backlog()).toBe(0);
  });

  it('waits while its database is away, then stores the event, and puts nothing aside', async () => {
    const retriesBefore = await bed.countedRetries(USAGE_GROUP_ID, TOPIC);
    store.proxy.block();
    const event = aUsageEvent();
    try {
      await bed.publish([messageOf(event)]);
      await expect.poll(() => bed.countedRetries(USAGE_GROUP_ID, TOPIC), { timeout: 30_000 }).toBeGreaterThanOrEqual(retriesBefore + 2);
      expect(await storedIds([event])).toEqual([]);
    } finally {
      store.proxy.unblock();
    }
    await expect.poll(() => storedIds([event]), { timeout: 60_000 }).toEqual([event.id]);
    expect(await bed.putAside(TOPIC)).toHaveLength(1);
    expect(await bed.countedPutAside(USAGE_GROUP_ID, TOPIC)).toBe(1);
    await expect.poll(() => bed.backlog(), { timeout: 30_000 }).toBe(0);
  });
});
