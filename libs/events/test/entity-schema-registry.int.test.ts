/**
 * The entity topic's value schema in the real registry: a union over entity types with typed fields, kept
 * BACKWARD compatible by the registry, and enforced by the producer before anything reaches Kafka.
 */
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ENTITY_TYPES, entityKey, entitySchemas, topics, type TopicDefinition } from '@timetable/contracts';
import { KafkaBus } from '@timetable/events';
import { RefusedEventError } from '@timetable/events/testing';
import { captureLogger, testInfrastructure } from '@timetable/testing';

const prefix = `typed${randomUUID().slice(0, 8)}.`;
const subject = `${prefix}${topics.entities.name}-value`;
const { logger } = captureLogger('error');
const buses: KafkaBus[] = [];

function newBus(topic: TopicDefinition, options: { registry: boolean; topicPrefix?: string }): KafkaBus {
  const infra = testInfrastructure();
  const bus = new KafkaBus({
    brokers: infra.kafkaBrokers,
    clientId: 'typed-entities-test',
    schemaRegistryUrl: options.registry ? infra.schemaRegistryUrl : undefined,
    topicPrefix: options.topicPrefix ?? prefix,
    topics: [topic],
    logger,
  });
  buses.push(bus);
  return bus;
}

/** The entity topic with the room's data schema replaced. */
function withRoomData(data: z.ZodObject): TopicDefinition {
  const branches = topics.entities.schema.options.map((branch) => (branch.shape.entityType.value === 'room' ? branch.extend({ data }) : branch));
  return { ...topics.entities, schema: z.discriminatedUnion('entityType', branches as unknown as [z.ZodObject, z.ZodObject]) };
}

async function registered(): Promise<{ versions: number[]; schema: Record<string, unknown> }> {
  const base = testInfrastructure().schemaRegistryUrl;
  const versions = (await (await fetch(`${base}/subjects/${subject}/versions`)).json()) as number[];
  const latest = (await (await fetch(`${base}/subjects/${subject}/versions/latest`)).json()) as { schema: string };
  return { versions, schema: JSON.parse(latest.schema) as Record<string, unknown> };
}

async function messagesIn(topic: string): Promise<number> {
  const admin = new Kafka({ brokers: testInfrastructure().kafkaBrokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return offsets.reduce((sum, partition) => sum + Number(partition.high) - Number(partition.low), 0);
  } finally {
    await admin.disconnect();
  }
}

const roomId = randomUUID();
const roomState = (capacity: unknown) => ({
  topic: topics.entities.name,
  key: entityKey('room', roomId),
  value: {
    entityType: 'room',
    entityId: roomId,
    data: { id: roomId, name: 'A 1.01', building: 'A', campus: 'Nord', capacity, tags: [], upstreamId: 7 },
    contentHash: 'c0ffee',
    updatedAt: '2026-03-01T10:00:00.000Z',
  },
});

let bus: KafkaBus;

beforeAll(async () => {
  bus = newBus(topics.entities, { registry: true });
  await bus.connect();
});

afterAll(async () => {
  for (const each of buses) await each.disconnect();
});

describe('the registered schema of timetable.entities.v1', () => {
  it('is a union over the entity types, each with typed fields', async () => {
    const { schema } = await registered();
    const branches = schema.oneOf as { properties: { entityType: { const: string }; data: { properties: Record<string, Record<string, unknown>> } } }[];
    expect(branches.map((branch) => branch.properties.entityType.const).sort()).toEqual([...ENTITY_TYPES].sort());
    const dataOf = (type: string) => branches.find((branch) => branch.properties.entityType.const === type)?.properties.data.properties ?? {};
    expect(dataOf('room').capacity).toMatchObject({ type: 'integer' });
    expect(dataOf('event').courseId).toMatchObject({ type: 'string', format: 'uuid' });
    expect(dataOf('semester').academicPeriodId).toMatchObject({ anyOf: [{ format: 'uuid' }, { type: 'null' }] });
    expect(dataOf('academicPeriod').startDate).toMatchObject({ format: 'date' });
    expect((branches[0] as unknown as { properties: { updatedAt: unknown } }).properties.updatedAt).toMatchObject({ format: 'date-time' });
  });

  it('refuses an incompatible change (room capacity as text) under BACKWARD, and takes a compatible one', async () => {
    const incompatible = newBus(withRoomData(entitySchemas.room.extend({ capacity: z.string() })), { registry: true });
    const refusal = (await incompatible.connect().then(
      () => undefined,
      (error: unknown) => error,
    )) as { status?: number; message?: string } | undefined;
    expect(refusal?.status).toBe(409);
    expect(refusal?.message).toMatch(/incompatible/i);
    expect((await registered()).versions).toHaveLength(1);
    const compatible = newBus(withRoomData(entitySchemas.room.extend({ floor: z.number().int().optional() })), { registry: true });
    await compatible.connect();
    expect((await registered()).versions).toHaveLength(2);
  });
});

describe('the producer', () => {
  it('refuses an entity state with a wrong field type and sends nothing; a well-typed one and a tombstone pass', async () => {
    const physical = `${prefix}${topics.entities.name}`;
    const before = await messagesIn(physical);
    await expect(bus.publish([roomState('forty')])).rejects.toThrow(RefusedEventError);
    await expect(bus.publish([roomState('forty')])).rejects.toThrow(/\/data\/capacity/);
    expect(await messagesIn(physical)).toBe(before);
    await bus.publish([roomState(40), { topic: topics.entities.name, key: entityKey('room', randomUUID()), value: null }]);
    expect(await messagesIn(physical)).toBe(before + 2);
  });

  it('refuses the same value without a registry (plain JSON values)', async () => {
    const plain = newBus(topics.entities, { registry: false, topicPrefix: `plain${randomUUID().slice(0, 8)}.` });
    await plain.connect();
    await expect(plain.publish([roomState('forty')])).rejects.toThrow(RefusedEventError);
    await plain.publish([roomState(40)]);
  });
});
