import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { TopicDefinition } from '@timetable/contracts';
import { consumerReadiness, KafkaBus, type EventConsumer } from '@timetable/events';
import { captureLogger, testInfrastructure } from '@timetable/testing';

const thing = z.object({ id: z.uuid(), n: z.number().int() });
const topic: TopicDefinition = { name: 'test.namespaced.things', schema: thing, compacted: false };
const { logger } = captureLogger('warn');
const buses: KafkaBus[] = [];
const consumers: EventConsumer[] = [];

function newBus(topicPrefix: string): KafkaBus {
  const infra = testInfrastructure();
  const bus = new KafkaBus({ brokers: infra.kafkaBrokers, clientId: 'lag-test', schemaRegistryUrl: infra.schemaRegistryUrl, topicPrefix, topics: [topic], logger });
  buses.push(bus);
  return bus;
}

async function eventually(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const things = (count: number) => Array.from({ length: count }, (_, n) => ({ topic: topic.name, key: `thing:${n}`, value: { id: randomUUID(), n } }));

let first: KafkaBus;
let second: KafkaBus;

beforeAll(async () => {
  first = newBus(`ns${randomUUID().slice(0, 8)}.`);
  second = newBus(`ns${randomUUID().slice(0, 8)}.`);
  await Promise.all([first.connect(), second.connect()]);
});

afterAll(async () => {
  await Promise.all(consumers.map((consumer) => consumer.stop()));
  await Promise.all(buses.map((bus) => bus.disconnect()));
});

describe('KAFKA_TOPIC_PREFIX and consumer lag', () => {
  it('keeps two prefixes apart under the same logical topic and group id, and hands each event over once', async () => {
    await first.publish(things(3));
    const seen = { first: 0, second: 0 };
    for (const [bus, name] of [[first, 'first'], [second, 'second']] as const) {
      const consumer = bus.subscribe({ groupId: 'same-group', topic, fromBeginning: true, handleBatch: async (events) => void (seen[name] += events.length) });
      consumers.push(consumer);
      await consumer.start();
    }
    await eventually(() => seen.first >= 3);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(seen).toEqual({ first: 3, second: 0 });
  });

  it('reports a restarted consumer as behind from the moment it joins, and ready once it caught up', async () => {
    const bus = newBus(`ns${randomUUID().slice(0, 8)}.`);
    await bus.connect();
    await bus.publish(things(50));
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const consumer = bus.subscribe({ groupId: 'slow', topic, fromBeginning: true, handleBatch: () => gate });
    consumers.push(consumer);
    const readiness = consumerReadiness('slow', consumer, 10);
    expect(readiness.check()).toBe(false);
    await consumer.start();
    await eventually(() => Number.isFinite(consumer.lag()));
    expect(consumer.lag()).toBe(50);
    expect(readiness.check()).toBe(false);
    release();
    await eventually(() => consumer.lag() === 0);
    expect(readiness.check()).toBe(true);
  });
});
