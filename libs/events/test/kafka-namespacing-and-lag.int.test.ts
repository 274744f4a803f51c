import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { TopicDefinition } from '@timetable/contracts';
import { consumerReadiness, KafkaBus, type EventConsumer } from '@timetable/events';
import { metricsRegistry } from '@timetable/observability';
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

/** The gauge's sample for one group, as Prometheus would scrape it. */
async function metricValue(name: string, group: string): Promise<number | undefined> {
  const metric = await metricsRegistry.getSingleMetric(name)?.get();
  return metric?.values.find((sample) => sample.labels.group === group)?.value;
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

  it('reports a restarted consumer as behind from the moment it joins, and stays ready while behind (lag is a metric)', async () => {
    const prefix = `ns${randomUUID().slice(0, 8)}.`;
    const bus = newBus(prefix);
    await bus.connect();
    await bus.publish(things(50));
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const consumer = bus.subscribe({ groupId: 'slow', topic, fromBeginning: true, handleBatch: () => gate });
    consumers.push(consumer);
    const readiness = consumerReadiness('slow', consumer);
    expect(readiness.check()).toBe(false);
    await consumer.start();
    await eventually(() => consumer.lag() === 50);
    expect(readiness.check()).toBe(true);
    expect(await metricValue('events_consumer_lag_messages', `${prefix}slow`)).toBe(50);
    release();
    await eventually(() => consumer.lag() === 0);
    expect(readiness.check()).toBe(true);
  });
});
