import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, type KafkaMessage } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { TopicDefinition } from '@timetable/contracts';
import { KafkaBus, type EventConsumer, type IncomingEvent } from '@timetable/events';
import { deadLetterTopicOf, RECORD_ATTEMPTS } from '@timetable/events/testing';
import { metricsRegistry } from '@timetable/observability';
import { captureLogger, TcpProxy, testInfrastructure } from '@timetable/testing';

/**
 * What a consumer does with a message it cannot decode: an undecodable one (garbage bytes) goes to
 * `<topic>.dlq` and the consumer goes on; one it cannot decode only because the registry is down waits
 * and is processed afterwards, with nothing in the dead-letter topic; a handler that keeps failing past the
 * retry budget makes the consumer give up instead of skipping; one whose data its handler refuses goes to
 * `<topic>.dlq` too, and the records after it are applied.
 */
const thing = z.object({ id: z.uuid(), n: z.number().int() });
// A compatible second version of the same value: registering it gives messages a schema id a consumer
// that connected earlier has never fetched.
const thingWithNote = thing.extend({ note: z.string().optional() });
const { logger } = captureLogger('fatal');
const kafkaLogLevel = logLevel.NOTHING;

let prefix: string;
let registryProxy: TcpProxy;
const buses: KafkaBus[] = [];
const consumers: EventConsumer[] = [];

function newBus(topic: TopicDefinition, options: { registryUrl?: string; schema?: z.ZodType; retryBudgetMs?: number; onConsumerFailure?: (error: unknown) => void }): KafkaBus {
  const infra = testInfrastructure();
  const bus = new KafkaBus({
    brokers: infra.kafkaBrokers,
    clientId: 'consumer-faults-test',
    schemaRegistryUrl: options.registryUrl ?? infra.schemaRegistryUrl,
    topicPrefix: prefix,
    topics: [{ ...topic, schema: options.schema ?? thing }],
    consumerRetryBudgetMs: options.retryBudgetMs ?? 120_000,
    onConsumerFailure: options.onConsumerFailure ?? (() => undefined),
    logger,
  });
  buses.push(bus);
  return bus;
}

function collector(bus: KafkaBus, topic: TopicDefinition<typeof thing>, groupId: string) {
  const received: IncomingEvent<z.infer<typeof thing>>[] = [];
  const consumer = bus.subscribe({
    groupId,
    topic,
    fromBeginning: true,
    handleBatch: async (events) => void received.push(...events),
  });
  consumers.push(consumer);
  return { consumer, received };
}

async function eventually(condition: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function counterValue(name: string, group: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric(name)?.get();
  const matches = (sample: { labels: Record<string, unknown> }) => sample.labels.group === group && Object.entries(labels).every(([label, value]) => sample.labels[label] === value);
  return metric?.values.find(matches)?.value ?? 0;
}

const topicNamed = (name: string): TopicDefinition<typeof thing> => ({ name: `test.consumer.${name}`, schema: thing, compacted: false });

/** Everything in the dead-letter topic of `topic` so far. */
async function deadLetters(topic: TopicDefinition): Promise<KafkaMessage[]> {
  const kafka = new Kafka({ brokers: testInfrastructure().kafkaBrokers, logLevel: kafkaLogLevel });
  const admin = kafka.admin();
  await admin.connect();
  const name = deadLetterTopicOf(`${prefix}${topic.name}`);
  const offsets = await admin.fetchTopicOffsets(name);
  await admin.disconnect();
  const total = offsets.reduce((sum, partition) => sum + Number(partition.high) - Number(partition.low), 0);
  if (total === 0) return [];
  const reader = kafka.consumer({ groupId: `dlq-reader-${randomUUID()}` });
  await reader.connect();
  await reader.subscribe({ topic: name, fromBeginning: true });
  const messages: KafkaMessage[] = [];
  await reader.run({ eachMessage: async ({ message }) => void messages.push(message) });
  await eventually(() => messages.length >= total, 30_000);
  await reader.disconnect();
  return messages;
}

async function writeRaw(topic: TopicDefinition, key: string, value: Buffer, headers: Record<string, string>): Promise<void> {
  const producer = new Kafka({ brokers: testInfrastructure().kafkaBrokers, logLevel: kafkaLogLevel }).producer();
  await producer.connect();
  await producer.send({ topic: `${prefix}${topic.name}`, messages: [{ key, value, headers }] });
  await producer.disconnect();
}

beforeAll(async () => {
  prefix = `faults${randomUUID().slice(0, 8)}.`;
  const registry = new URL(testInfrastructure().schemaRegistryUrl);
  registryProxy = await TcpProxy.start(registry.hostname, Number(registry.port));
});

afterAll(async () => {
  await Promise.all(consumers.map((consumer) => consumer.stop().catch(() => undefined)));
  await Promise.all(buses.map((bus) => bus.disconnect()));
  await registryProxy?.close();
});

describe('a message that can never be decoded', () => {
  it('lands in <topic>.dlq with its key, value, headers and the error, is counted, and the consumer goes on', async () => {
    const topic = topicNamed('garbage');
    const bus = newBus(topic, {});
    await bus.connect();
    const group = 'dlq-group';
    const { consumer, received } = collector(bus, topic, group);
    await consumer.start();
    const [before, after] = [randomUUID(), randomUUID()];
    await bus.publish([{ topic: topic.name, key: `thing:${before}`, value: { id: before, n: 1 } }]);
    const garbage = Buffer.from([0xde, 0xad, 0xbe, 0xef, 0x00, 0x7b]);
    await writeRaw(topic, 'thing:garbage', garbage, { ce_id: 'garbage-1' });
    await bus.publish([{ topic: topic.name, key: `thing:${after}`, value: { id: after, n: 2 } }]);

    await eventually(() => received.length >= 2);
    expect(received.map((event) => event.value?.id).sort()).toEqual([before, after].sort());
    // The three keys may sit on different partitions, so the good records can arrive before the garbage's batch.
    await eventually(async () => (await counterValue('events_dead_lettered_total', `${prefix}${group}`, { reason: 'undecodable' })) >= 1);
    const letters = await deadLetters(topic);
    expect(letters).toHaveLength(1);
    const [letter] = letters;
    expect(letter?.key?.toString()).toBe('thing:garbage');
    expect(letter?.value).toEqual(garbage);
    const headers = Object.fromEntries(Object.entries(letter?.headers ?? {}).map(([name, value]) => [name, String(value)]));
    expect(headers).toMatchObject({ ce_id: 'garbage-1', dlq_topic: `${prefix}${topic.name}`, dlq_group: `${prefix}${group}` });
    expect(headers.dlq_error).toMatch(/wire format/);
    expect(await counterValue('events_dead_lettered_total', `${prefix}${group}`, { reason: 'undecodable' })).toBe(1);
  });
});

describe('a record its handler cannot apply for a reason in its data', () => {
  it('is tried RECORD_ATTEMPTS times on its own, then lands in <topic>.dlq as it was; the records of its batch after it are applied', async () => {
    const topic = topicNamed('unapplicable');
    const bus = newBus(topic, {});
    await bus.connect();
    const group = 'unapplicable-group';
    const applied: number[] = [];
    const consumer = bus.subscribe({
      groupId: group, topic, fromBeginning: true,
      handleBatch: async (events) => {
        const tooLarge = events.find((event) => event.value!.n > 2_147_483_647);
        if (tooLarge) throw Object.assign(new Error(`value "${tooLarge.value!.n}" is out of range for type integer`), { code: '22003', severity: 'ERROR' });
        applied.push(...events.map((event) => event.value!.n));
      },
    });
    consumers.push(consumer);
    await consumer.start();
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    // One key, so one partition and one batch: the good records around the refused one share its batch.
    await bus.publish([1, 3_000_000_000, 2].map((n, index) => ({ topic: topic.name, key: 'thing:one', value: { id: ids[index], n }, headers: { ce_id: `change-${n}` } })));

    await eventually(() => applied.length >= 2);
    expect(applied).toEqual([1, 2]);
    const letters = await deadLetters(topic);
    expect(letters).toHaveLength(1);
    const headers = Object.fromEntries(Object.entries(letters[0]?.headers ?? {}).map(([name, value]) => [name, String(value)]));
    expect(letters[0]?.key?.toString()).toBe('thing:one');
    expect(JSON.parse(letters[0]!.value!.subarray(5).toString())).toEqual({ id: ids[1], n: 3_000_000_000 });
    expect(headers).toMatchObject({ ce_id: 'change-3000000000', dlq_reason: 'unapplicable', dlq_attempts: String(RECORD_ATTEMPTS), dlq_group: `${prefix}${group}` });
    expect(headers.dlq_error).toMatch(/out of range .*\[sqlstate 22003\]/);
    expect(await counterValue('events_dead_lettered_total', `${prefix}${group}`, { reason: 'unapplicable' })).toBe(1);
  });
});

describe('a registry outage', () => {
  it('makes the consumer wait and retry, then process the message, with nothing in the dead-letter topic', async () => {
    const topic = topicNamed('outage');
    const consumerBus = newBus(topic, { registryUrl: registryProxy.urlFor(testInfrastructure().schemaRegistryUrl) });
    await consumerBus.connect();
    const group = 'outage-group';
    const { consumer, received } = collector(consumerBus, topic, group);
    await consumer.start();

    registryProxy.block();
    const producerBus = newBus(topic, { schema: thingWithNote });
    await producerBus.connect();
    const id = randomUUID();
    await producerBus.publish([{ topic: topic.name, key: `thing:${id}`, value: { id, n: 3, note: 'new schema id' } }]);
    await eventually(async () => (await counterValue('events_consumer_retries_total', `${prefix}${group}`)) >= 2);
    expect(received.some((event) => event.value?.id === id)).toBe(false);
    expect(consumer.isHealthy()).toBe(true);

    registryProxy.unblock();
    await eventually(() => received.some((event) => event.value?.id === id));
    expect(await deadLetters(topic)).toHaveLength(0);
  });
});

describe('a process that starts while the registry is down', () => {
  it('connects, refuses to publish until its schemas are registered in the background, then publishes', async () => {
    const topic = topicNamed('late-registry');
    registryProxy.block();
    const bus = newBus(topic, { registryUrl: registryProxy.urlFor(testInfrastructure().schemaRegistryUrl) });
    try {
      await bus.connect();
      const id = randomUUID();
      const send = () => bus.publish([{ topic: topic.name, key: `thing:${id}`, value: { id, n: 5 } }]);
      await expect(send()).rejects.toThrow(/No schema registered/);
      registryProxy.unblock();
      await eventually(() => send().then(() => true, () => false));
      const { consumer, received } = collector(newBus(topic, {}), topic, 'late-registry-group');
      await buses.at(-1)?.connect();
      await consumer.start();
      await eventually(() => received.some((event) => event.value?.id === id));
    } finally {
      registryProxy.unblock();
    }
  });
});

describe('a handler that keeps failing', () => {
  it('is retried until the budget is spent, then the consumer gives up instead of committing past it', async () => {
    let failure: unknown;
    const topic = topicNamed('failing');
    const bus = newBus(topic, { retryBudgetMs: 1_500, onConsumerFailure: (error) => void (failure = error) });
    await bus.connect();
    let attempts = 0;
    const consumer = bus.subscribe({
      groupId: 'failing-group',
      topic,
      fromBeginning: true,
      handleBatch: () => {
        attempts += 1;
        return Promise.reject(new Error('database is down'));
      },
    });
    consumers.push(consumer);
    await consumer.start();
    const id = randomUUID();
    await bus.publish([{ topic: topic.name, key: `thing:${id}`, value: { id, n: 4 } }]);
    await eventually(() => failure !== undefined);
    expect(String(failure)).toMatch(/database is down/);
    expect(attempts).toBeGreaterThan(1);
    expect(consumer.isHealthy()).toBe(false);
    expect(await deadLetters(topic)).toHaveLength(0);
  });
});
