import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { TopicDefinition } from '@timetable/contracts';
import { appendToOutbox, createOutboxTable, InProcessBus, OutboxRelay, type IncomingEvent } from '@timetable/events';
import { captureLogger, createMigratedKnex } from '@timetable/testing';
import type { Knex } from '@timetable/db';

const topic: TopicDefinition = { name: 'test.outbox', schema: z.object({ n: z.number() }), compacted: false };
const { logger } = captureLogger('error');
let knex: Knex;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ knex, close } = await createMigratedKnex('outbox_test', { '20260101000000_outbox': createOutboxTable }));
});

afterAll(() => close());

function busRecording(failTimes = 0) {
  const bus = new InProcessBus(logger);
  const seen: IncomingEvent[] = [];
  let failures = failTimes;
  const consumer = bus.subscribe({
    groupId: 'test',
    topic,
    fromBeginning: true,
    handleBatch: async (events) => {
      if (failures > 0) {
        failures -= 1;
        throw new Error('subscriber down');
      }
      seen.push(...events);
    },
  });
  return { bus, seen, consumer };
}

describe('the transactional outbox', () => {
  it('publishes nothing from a rolled-back transaction', async () => {
    await knex
      .transaction(async (trx) => {
        await appendToOutbox(trx, [{ topic: topic.name, key: 'k', value: { n: 0 } }]);
        throw new Error('abort');
      })
      .catch(() => undefined);
    expect(await knex('outbox').count('* as count').first()).toEqual({ count: 0 });
  });

  it('relays committed rows in order and removes them only after the bus accepted them', async () => {
    const { bus, seen, consumer } = busRecording(1);
    await consumer.start();
    await knex.transaction((trx) =>
      appendToOutbox(trx, [1, 2, 3].map((n) => ({ topic: topic.name, key: 'k', value: { n } }))),
    );
    const relay = new OutboxRelay({ knex, schema: 'outbox_test', bus, logger });
    await expect(relay.drain()).rejects.toThrow('subscriber down');
    expect(await relay.backlog()).toBe(3);
    await relay.drain();
    expect(await relay.backlog()).toBe(0);
    // At least once, in order per key: the records the failed batch held come first, then the relay's repeat.
    const values = seen.map((event) => (event.value as { n: number }).n);
    expect(values.slice(0, 3)).toEqual([1, 2, 3]);
    expect(new Set(values)).toEqual(new Set([1, 2, 3]));
  });

  it('runs as a loop that a commit can wake', async () => {
    const { bus, seen, consumer } = busRecording();
    await consumer.start();
    const relay = new OutboxRelay({ knex, schema: 'outbox_test', bus, logger, idleMs: 60_000 });
    await relay.start();
    await knex.transaction((trx) => appendToOutbox(trx, [{ topic: topic.name, key: 'w', value: { n: 9 } }]));
    relay.wake();
    await expect.poll(() => seen.length, { timeout: 5000 }).toBe(1);
    await relay.stop();
  });
});
