import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { TopicDefinition } from '@timetable/contracts';
import { InProcessBus, type IncomingEvent } from '@timetable/events';
import { captureLogger } from '@timetable/testing';

/** What only the in-process bus has to get right (the shared behaviour suite covers the rest): its retention. */
const topic: TopicDefinition = { name: 'test.retention', schema: z.object({ n: z.number().int() }), compacted: false };
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
