import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { TopicDefinition } from '@timetable/contracts';
import { appendToOutbox, DeadLetterTable, InProcessBus, OutboxRelay, type IncomingEvent } from '@timetable/events';
import { outboxStoreMigrations, RECORD_ATTEMPTS } from '@timetable/events/testing';
import { captureLogger, createMigratedKnex } from '@timetable/testing';
import type { Knex } from '@timetable/db';

const topic: TopicDefinition = { name: 'test.outbox', schema: z.object({ n: z.number() }), compacted: false };
const { logger } = captureLogger('error');
let knex: Knex;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ knex, close } = await createMigratedKnex('outbox_test', outboxStoreMigrations));
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

  it('moves past a record a subscriber cannot apply: it lands in dead_letters, and moving it back replays it', async () => {
    const bus = new InProcessBus(logger, { topics: [topic], deadLetters: new DeadLetterTable(knex) });
    const seen: number[] = [];
    let limit = 100;
    const consumer = bus.subscribe({
      groupId: 'bounded', topic, fromBeginning: true,
      handleBatch: async (events) => {
        const values = events.map((event) => (event.value as { n: number }).n);
        if (values.some((n) => n > limit)) throw Object.assign(new Error('value out of range for type integer'), { code: '22003', severity: 'ERROR' });
        seen.push(...values);
      },
    });
    await consumer.start();
    await knex.transaction((trx) => appendToOutbox(trx, [1, 3_000_000_000, 2].map((n) => ({ topic: topic.name, key: `k${n}`, value: { n }, headers: { ce_id: `c${n}` } }))));
    const relay = new OutboxRelay({ knex, schema: 'outbox_test', bus, logger });
    await relay.drain();
    expect(await relay.backlog()).toBe(0);
    expect(seen.sort((a, b) => a - b)).toEqual([1, 2]);
    const rows = await knex('dead_letters').select('id', 'group_id', 'topic', 'message_key', 'value', 'headers', 'error', 'attempts');
    expect(rows).toEqual([{
      id: expect.any(Number), group_id: 'bounded', topic: topic.name, message_key: 'k3000000000', value: { n: 3_000_000_000 },
      headers: { ce_id: 'c3000000000' }, error: expect.stringMatching(/out of range.*\[sqlstate 22003\]/), attempts: RECORD_ATTEMPTS,
    }]);

    // The replay docs/events.md gives an operator, once the consumer can apply the record.
    limit = Number.POSITIVE_INFINITY;
    await knex.raw(`with replayed as (delete from outbox_test.dead_letters where id = ? returning topic, message_key, value, headers)
      insert into outbox_test.outbox (topic, message_key, value, headers) select topic, message_key, value::jsonb, headers from replayed`, [rows[0].id]);
    await relay.drain();
    expect(seen).toContain(3_000_000_000);
    expect(await knex('dead_letters').count('* as count').first()).toEqual({ count: 0 });
  });
});
