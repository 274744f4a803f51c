import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { TopicDefinition } from '@timetable/contracts';
import { InProcessBus, type IncomingEvent, type PutAsideRecord } from '@timetable/events';
import { RECORD_ATTEMPTS } from '@timetable/events/testing';
import { captureLogger } from '@timetable/testing';

/** What only the in-process bus has to get right (the shared behaviour suite covers the rest). */
const topic: TopicDefinition = { name: 'test.retention', schema: z.object({ n: z.number().int() }), compacted: false };
const other: TopicDefinition = { name: 'test.other', schema: z.object({ n: z.number().int() }), compacted: false };
const { logger } = captureLogger('fatal');
const events = (from: number, count: number) => Array.from({ length: count }, (_, index) => ({ topic: topic.name, key: 'k', value: { n: from + index } }));
const numbers = (received: IncomingEvent[]) => received.map((event) => (event.value as { n: number }).n);

describe('the in-process bus retention', () => {
  it('never drops a record that a group has yet to read, however far past the retention it is', async () => {
    const bus = new InProcessBus(logger, { topics: [topic], partitions: 1, retention: 5 });
    const received: IncomingEvent[] = [];
    let failures = 1;
    const consumer = bus.subscribe({
      groupId: 'slow', topic, fromBeginning: true,
      handleBatch: async (batch) => {
        if (failures-- > 0) throw new Error('down');
        received.push(...batch);
      },
    });
    await consumer.start();
    await expect(bus.publish(events(1, 20))).rejects.toThrow('down');
    await bus.publish(events(21, 1));
    expect(numbers(received)).toEqual(Array.from({ length: 21 }, (_, index) => index + 1));
  });

  it('keeps the last `retention` records once every group has read them, for a group that starts late', async () => {
    const bus = new InProcessBus(logger, { topics: [topic], partitions: 1, retention: 5 });
    const early = bus.subscribe({ groupId: 'early', topic, fromBeginning: true, handleBatch: async () => undefined });
    await early.start();
    await bus.publish(events(1, 20));
    const late: IncomingEvent[] = [];
    const consumer = bus.subscribe({ groupId: 'late', topic, fromBeginning: true, handleBatch: async (batch) => void late.push(...batch) });
    await consumer.start();
    await expect.poll(() => late.length).toBe(5);
    expect(numbers(late)).toEqual([16, 17, 18, 19, 20]);
  });
});

describe('a compacted topic on the in-process bus', () => {
  it('gives a group that starts late the latest record of every key, tombstones included', async () => {
    const state: TopicDefinition = { name: 'test.state', schema: z.object({ n: z.number().int() }), compacted: true };
    const bus = new InProcessBus(logger, { topics: [state] });
    await bus.publish([
      { topic: state.name, key: 'a', value: { n: 1 } },
      { topic: state.name, key: 'b', value: { n: 1 } },
      { topic: state.name, key: 'a', value: { n: 2 } },
      { topic: state.name, key: 'b', value: null },
      { topic: state.name, key: 'c', value: { n: 1 } },
    ]);
    const late: IncomingEvent[] = [];
    const consumer = bus.subscribe({ groupId: 'rebuild', topic: state, fromBeginning: true, handleBatch: async (batch) => void late.push(...batch) });
    await consumer.start();
    await expect.poll(() => late.length).toBe(3);
    expect(Object.fromEntries(late.map((event) => [event.key, event.value]))).toEqual({ a: { n: 2 }, b: null, c: { n: 1 } });
  });
});

describe('a handler that fails on the in-process bus', () => {
  it('holds up only the publishes whose records its group has to read', async () => {
    const bus = new InProcessBus(logger, { topics: [topic, other] });
    const broken = bus.subscribe({ groupId: 'broken', topic, fromBeginning: true, handleBatch: () => Promise.reject(new Error('database away')) });
    const healthy: IncomingEvent[] = [];
    const fine = bus.subscribe({ groupId: 'fine', topic: other, fromBeginning: true, handleBatch: async (batch) => void healthy.push(...batch) });
    await broken.start();
    await fine.start();
    await expect(bus.publish(events(1, 1))).rejects.toThrow('database away');
    await bus.publish([{ topic: other.name, key: 'k', value: { n: 7 } }]);
    expect(numbers(healthy)).toEqual([7]);
    await broken.stop();
    await bus.disconnect();
  });

  it('gets its records handed over again by itself, without waiting for another publish', async () => {
    const bus = new InProcessBus(logger, { topics: [topic] });
    const received: IncomingEvent[] = [];
    let failures = 1;
    const consumer = bus.subscribe({
      groupId: 'flaky', topic, fromBeginning: true,
      handleBatch: async (batch) => {
        if (failures-- > 0) throw new Error('down');
        received.push(...batch);
      },
    });
    await consumer.start();
    await expect(bus.publish(events(1, 3))).rejects.toThrow('down');
    await expect.poll(() => numbers(received), { timeout: 5_000 }).toEqual([1, 2, 3]);
    await bus.disconnect();
  });
});

describe('a record whose data a handler refuses on the in-process bus', () => {
  const outOfRange = (n: number) => Object.assign(new Error(`value ${n} is out of range for type integer`), { code: '22003', severity: 'ERROR' });

  it('is put aside with its error after RECORD_ATTEMPTS tries, the records after it are handled and the publish resolves', async () => {
    const putAside: PutAsideRecord[] = [];
    const bus = new InProcessBus(logger, { topics: [topic], partitions: 1, deadLetters: { putAside: async (records) => void putAside.push(...records) } });
    const received: number[] = [];
    let triesOfRefused = 0;
    const consumer = bus.subscribe({
      groupId: 'refusing', topic, fromBeginning: true,
      handleBatch: async (batch) => {
        const refused = batch.find((event) => (event.value as { n: number }).n > 100);
        if (refused) {
          if (batch.length === 1) triesOfRefused += 1;
          throw outOfRange((refused.value as { n: number }).n);
        }
        received.push(...numbers(batch));
      },
    });
    await consumer.start();
    await bus.publish([...events(1, 2), { topic: topic.name, key: 'k', value: { n: 3_000_000_000 } }, ...events(3, 2)]);
    expect(received).toEqual([1, 2, 3, 4]);
    expect(triesOfRefused).toBe(RECORD_ATTEMPTS);
    expect(putAside).toHaveLength(1);
    expect(putAside[0]).toMatchObject({ group: 'refusing', attempts: RECORD_ATTEMPTS, event: { topic: topic.name, key: 'k', value: { n: 3_000_000_000 } } });
    expect(putAside[0]?.error).toMatch(/out of range .*\[sqlstate 22003\]/);
    await bus.disconnect();
  });

  it('is not put aside while the store for it is away: the group keeps its position and tries again', async () => {
    let storeAway = true;
    const putAside: PutAsideRecord[] = [];
    const bus = new InProcessBus(logger, {
      topics: [topic], partitions: 1,
      deadLetters: { putAside: async (records) => (storeAway ? Promise.reject(new Error('connect ECONNREFUSED')) : void putAside.push(...records)) },
    });
    const consumer = bus.subscribe({ groupId: 'store-away', topic, fromBeginning: true, handleBatch: () => Promise.reject(outOfRange(1)) });
    await consumer.start();
    await expect(bus.publish(events(1, 1))).rejects.toThrow(/ECONNREFUSED/);
    expect(consumer.lag()).toBe(1);
    storeAway = false;
    await bus.publish(events(2, 1));
    expect(putAside.map((record) => (record.event.value as { n: number }).n)).toEqual([1, 2]);
    expect(consumer.lag()).toBe(0);
    await bus.disconnect();
  });
});
