import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topics, type ChangeEvent } from '@timetable/contracts';
import type { EventConsumer } from '@timetable/events';
import { openTestBed, RECORD_ATTEMPTS, type ConsumerTestBed } from '@timetable/events/testing';
import { captureLogger, createStoreBehindProxy, testInfrastructure, type StoreBehindProxy } from '@timetable/testing';
import { MATCHER_GROUP_ID, subscribeChangeMatcher } from '../src/features/matching/change-matcher.js';
import { MatchStore } from '../src/features/matching/match-store.js';
import { SecretCipher } from '../src/features/secrets/secret-cipher.js';
import { WebhookStore } from '../src/features/webhooks/webhook-store.js';
import { webhookMigrations, WEBHOOKS_SCHEMA } from '../src/index.js';
import { change } from './support/webhook-harness.js';

/**
 * The dispatcher's change matching, in both modes, meets a change it cannot match for a reason in its data (a
 * `createdAt` in year 0, which the schema's ISO format allows and PostgreSQL's timestamptz does not hold)
 * between good ones: it is put aside with its error and counted, and the changes after it are matched to the
 * webhook (their deliveries queued). With its database away, a change waits and nothing is put aside.
 */
const { logger } = captureLogger('fatal');
const TOPIC = topics.changes.name;
const now = () => new Date();

const messageOf = (value: ChangeEvent) => ({ topic: TOPIC, key: `${value.entityType}:${value.entityId}`, value, headers: { ce_id: value.id } });

describe.each(['embedded', 'kafka'] as const)('the change matcher in %s mode', (mode) => {
  let store: StoreBehindProxy;
  let bed: ConsumerTestBed;
  let consumer: EventConsumer;
  const queuedFor = async (changes: ChangeEvent[]) => (await store.direct('deliveries').whereIn('change_id', changes.map((each) => each.id)).pluck('change_id')).sort();

  beforeAll(async () => {
    store = await createStoreBehindProxy(WEBHOOKS_SCHEMA, webhookMigrations, logger);
    const webhooks = new WebhookStore({ knex: store.direct, cipher: new SecretCipher(randomBytes(32)) });
    await webhooks.insertWithinLimit({
      id: randomUUID(), developerId: randomUUID(), url: 'https://receiver.example.edu/hook', secret: null, filterScope: 'global',
      filterProgramId: null, filterSemesterId: null, filterCourseId: null, filterRoomId: null, filterInstructorId: null,
      eventTypes: ['created', 'updated', 'deleted'], isActive: true, disabledReason: null, disabledAt: null, createdAt: now(), updatedAt: now(),
    }, 25);
    const infra = testInfrastructure();
    bed = await openTestBed(mode === 'kafka'
      ? { mode, brokers: infra.kafkaBrokers, schemaRegistryUrl: infra.schemaRegistryUrl, logger }
      : { mode, connectionString: store.connectionString, logger });
    // The matcher reads only what comes after it starts; its group starts at the (empty) topic's end.
    await bed.startGroupAtEnd(MATCHER_GROUP_ID, TOPIC);
    consumer = subscribeChangeMatcher({ bus: bed.bus, store: new MatchStore({ knex: store.knex }), logger, now });
    await consumer.start();
  });

  afterAll(async () => {
    await consumer?.stop();
    await bed?.close();
    await store?.close();
  });

  it('puts aside a change it cannot match, with its error, counts it, and queues the deliveries of the changes after it', async () => {
    const before = change();
    const refused = change({ createdAt: '0000-01-01T00:00:00.000Z' });
    const after = [change(), change()];
    await bed.publish([before, refused, ...after].map(messageOf));

    await expect.poll(() => queuedFor([before, ...after]), { timeout: 60_000 }).toEqual([before, ...after].map((each) => each.id).sort());
    expect(await queuedFor([refused])).toEqual([]);
    await expect.poll(() => bed.putAside(TOPIC), { timeout: 30_000 }).toHaveLength(1);
    const [aside] = await bed.putAside(TOPIC);
    expect(aside).toMatchObject({ key: `course:${refused.entityId}`, value: refused, attempts: RECORD_ATTEMPTS, headers: { ce_id: refused.id } });
    expect(aside?.error).toMatch(/date\/time field value out of range.*\[sqlstate 22008\]/);
    expect(await bed.countedPutAside(MATCHER_GROUP_ID, TOPIC)).toBe(1);
    await expect.poll(() => bed.backlog()).toBe(0);
  });

  it('waits while its database is away, then queues the delivery, and puts nothing aside', async () => {
    const retriesBefore = await bed.countedRetries(MATCHER_GROUP_ID, TOPIC);
    store.proxy.block();
    const waiting = change();
    try {
      await bed.publish([messageOf(waiting)]);
      await expect.poll(() => bed.countedRetries(MATCHER_GROUP_ID, TOPIC), { timeout: 30_000 }).toBeGreaterThanOrEqual(retriesBefore + 2);
      expect(await queuedFor([waiting])).toEqual([]);
    } finally {
      store.proxy.unblock();
    }
    await expect.poll(() => queuedFor([waiting]), { timeout: 60_000 }).toEqual([waiting.id]);
    expect(await bed.putAside(TOPIC)).toHaveLength(1);
    expect(await bed.countedPutAside(MATCHER_GROUP_ID, TOPIC)).toBe(1);
    await expect.poll(() => bed.backlog(), { timeout: 30_000 }).toBe(0);
  });
});
