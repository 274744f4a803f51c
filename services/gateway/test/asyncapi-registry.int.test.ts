/**
 * The payload schemas of /v1/timetable/asyncapi.json are, byte for byte, the schemas the real KafkaBus
 * registers in the real registry: the document cannot drift from what consumers are checked against.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_TOPICS } from '@timetable/contracts';
import { KafkaBus } from '@timetable/events';
import type { AsyncApiDocument } from '@timetable/gateway';
import { captureLogger, testInfrastructure } from '@timetable/testing';
import { startTestGateway, type TestGateway } from './support/test-gateway.js';

const prefix = `asyncapi${randomUUID().slice(0, 8)}.`;
let bus: KafkaBus;
let gateway: TestGateway;

async function registeredSchema(topic: string): Promise<string> {
  const response = await fetch(`${testInfrastructure().schemaRegistryUrl}/subjects/${prefix}${topic}-value/versions/latest`);
  expect(response.status, topic).toBe(200);
  return ((await response.json()) as { schema: string }).schema;
}

beforeAll(async () => {
  const infra = testInfrastructure();
  const { logger } = captureLogger('error');
  bus = new KafkaBus({ brokers: infra.kafkaBrokers, clientId: 'asyncapi-test', schemaRegistryUrl: infra.schemaRegistryUrl, topicPrefix: prefix, topics: ALL_TOPICS, logger });
  await bus.connect();
  gateway = await startTestGateway();
});

afterAll(async () => {
  await gateway?.close();
  await bus?.disconnect();
});

describe('the AsyncAPI payload schemas', () => {
  it('are the schemas registered for every topic, byte for byte', async () => {
    const body = await (await fetch(`${gateway.origin}/v1/timetable/asyncapi.json`)).text();
    const document = JSON.parse(body) as AsyncApiDocument;
    const channels = Object.values(document.channels) as { address: string; messages: Record<string, { $ref: string }> }[];
    expect(channels.map((channel) => channel.address).sort()).toEqual(ALL_TOPICS.map((topic) => topic.name).sort());
    for (const channel of channels) {
      const [reference] = Object.values(channel.messages);
      const message = document.components.messages[reference!.$ref.split('/').at(-1)!]!;
      const registered = await registeredSchema(channel.address);
      expect(JSON.stringify(message.payload.schema), channel.address).toBe(registered);
      expect(body.includes(registered), channel.address).toBe(true);
    }
  });
});
