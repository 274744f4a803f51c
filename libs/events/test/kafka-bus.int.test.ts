import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { TopicDefinition } from '@timetable/contracts';
import { KafkaBus, type IncomingEvent } from '@timetable/events';
import { captureLogger, testInfrastructure } from '@timetable/testing';

const suffix = randomUUID().slice(0, 8);
const thing = z.object({ id: z.uuid(), name: z.string(), count: z.number().int() });
const plainTopic: TopicDefinition<typeof thing> = { name: `test.things.${suffix}`, schema: thing, compacted: false };
const compactTopic: TopicDefinition<typeof thing> = { name: `test.state.${suffix}`, schema: thing, compacted: true };
const { logger } = captureLogger('warn');

let bus: KafkaBus;

beforeAll(async () => {
  const infra = testInfrastructure();
  bus = new KafkaBus({
    brokers: infra.kafkaBrokers,
    clientId: 'events-test',
    schemaRegistryUrl: infra.schemaRegistryUrl,
    topics: [plainTopic, compactTopic],
    logger,
  });
  await bus.connect();
});

afterAll(() => bus.disconnect());

function collect(topic: TopicDefinition<typeof thing>, expected: number) {
  const received: IncomingEvent<z.infer<typeof thing>>[] = [];
  let resolve: () => void = () => undefined;
  const done = new Promise<void>((r) => (resolve = r));
  const consumer = bus.subscribe({
    groupId: `test-${randomUUID()}`,
    topic,
    fromBeginning: true,
    handleBatch: async (events) => {
      received.push(...events);
      if (received.length >= expected) resolve();
    },
  });
  return { consumer, received, done };
}

describe('the Kafka bus with the schema registry', () => {
  it('registers the zod-generated JSON Schema under <topic>-value with BACKWARD compatibility', async () => {
    const { schemaRegistryUrl } = testInfrastructure();
    const versions = await fetch(`${schemaRegistryUrl}/subjects/${plainTopic.name}-value/versions/latest`);
    expect(versions.ok).toBe(true);
    const latest = (await versions.json()) as { schemaType: string; schema: string };
    expect(latest.schemaType).toBe('JSON');
    expect(JSON.parse(latest.schema)).toMatchObject({ type: 'object', required: expect.arrayContaining(['id', 'name', 'count']) });
    const config = await fetch(`${schemaRegistryUrl}/config/${plainTopic.name}-value`);
    expect(((await config.json()) as { compatibilityLevel: string }).compatibilityLevel).toBe('BACKWARD');
  });

  it('produces registry-framed values that a consumer group decodes, validates and receives in key order', async () => {
    const id = randomUUID();
    const { consumer, received, done } = collect(plainTopic, 3);
    await consumer.start();
    await bus.publish(
      [1, 2, 3].map((count) => ({ topic: plainTopic.name, key: `thing:${id}`, value: { id, name: 'Größe', count }, headers: { ce_id: `${count}` } })),
    );
    await done;
    await consumer.stop();
    expect(received.map((event) => event.value?.count)).toEqual([1, 2, 3]);
    expect(received[0]).toMatchObject({ key: `thing:${id}`, headers: { ce_id: '1' }, value: { name: 'Größe' } });
  });

  it('writes the Confluent wire format: magic byte 0 and a 4-byte schema id', async () => {
    const { kafkaBrokers } = testInfrastructure();
    const raw = new Kafka({ brokers: kafkaBrokers, logLevel: logLevel.NOTHING }).consumer({ groupId: `raw-${randomUUID()}` });
    await raw.connect();
    await raw.subscribe({ topic: plainTopic.name, fromBeginning: true });
    const first = await new Promise<Buffer>((resolve) => {
      void raw.run({ eachMessage: async ({ message }) => resolve(message.value as Buffer) });
    });
    await raw.disconnect();
    expect(first[0]).toBe(0);
    expect(first.readInt32BE(1)).toBeGreaterThan(0);
    expect(JSON.parse(first.subarray(5).toString('utf8'))).toMatchObject({ name: 'Größe' });
  });

  it('refuses to produce a value that violates the schema', async () => {
    await expect(
      bus.publish([{ topic: plainTopic.name, key: 'bad', value: { id: 'not-a-uuid', name: 1, count: 'x' } }]),
    ).rejects.toThrow();
  });

  it('carries tombstones on compacted topics', async () => {
    const id = randomUUID();
    const { consumer, received, done } = collect(compactTopic, 2);
    await consumer.start();
    await bus.publish([
      { topic: compactTopic.name, key: `thing:${id}`, value: { id, name: 'a', count: 1 } },
      { topic: compactTopic.name, key: `thing:${id}`, value: null },
    ]);
    await done;
    await consumer.stop();
    expect(received.map((event) => event.value)).toEqual([{ id, name: 'a', count: 1 }, null]);
  });
});
