/**
 * GET /v1/timetable/asyncapi.json: an AsyncAPI 3.0 document of the Kafka topics, validated offline by the
 * AsyncAPI parser, whose payload schemas are the JSON Schemas the producers register.
 */
import { Parser } from '@asyncapi/parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITY_TYPES, topicJsonSchema, topics, type TopicDefinition } from '@timetable/contracts';
import type { AsyncApiDocument } from '@timetable/gateway';
import { startTestGateway, type TestGateway } from './support/test-gateway.js';

let gateway: TestGateway;
let document: AsyncApiDocument;

/** Diagnostics that make a document invalid or questionable (Spectral: 0 error, 1 warning). */
async function problemsOf(candidate: unknown): Promise<string[]> {
  const { diagnostics } = await new Parser().parse(JSON.stringify(candidate));
  return diagnostics.filter((diagnostic) => diagnostic.severity <= 1).map((diagnostic) => `${diagnostic.path.join('.')}: ${diagnostic.message}`);
}

const messageOf = (id: string) => document.components.messages[id]!;

beforeAll(async () => {
  gateway = await startTestGateway();
  const response = await fetch(`${gateway.origin}/v1/timetable/asyncapi.json`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('application/json');
  document = (await response.json()) as AsyncApiDocument;
});

afterAll(() => gateway.close());

describe('the AsyncAPI document', () => {
  it('is valid AsyncAPI 3.0, while a broken copy is not', async () => {
    expect(document.asyncapi).toBe('3.0.0');
    expect(await problemsOf(document)).toEqual([]);
    const broken = structuredClone(document) as unknown as { operations: Record<string, Record<string, unknown>> };
    delete broken.operations.receiveChanges?.action;
    expect(await problemsOf(broken)).not.toEqual([]);
  }, 30_000);

  it('has one channel per topic, with the topic as address and its cleanup policy', () => {
    const channels = Object.values(document.channels) as { address: string; bindings: { kafka: { topicConfiguration: Record<string, string[]> } } }[];
    expect(channels.map((channel) => channel.address)).toEqual(['timetable.changes.v1', 'timetable.entities.v1', 'timetable.usage.v1']);
    expect(channels.map((channel) => channel.bindings.kafka.topicConfiguration['cleanup.policy'])).toEqual([['delete'], ['compact'], ['delete']]);
  });

  it('documents the key and the CloudEvents headers of changes and entity states', () => {
    for (const id of ['changes', 'entities']) {
      const message = messageOf(id) as unknown as { headers: { required: string[] }; bindings: { kafka: { key: { pattern: string; examples: string[] } } } };
      expect(message.headers.required).toEqual(['ce_specversion', 'ce_id', 'ce_type', 'ce_source', 'ce_time', 'content-type']);
      const key = message.bindings.kafka.key;
      expect(key.examples.every((example) => new RegExp(key.pattern).test(example))).toBe(true);
    }
    expect(messageOf('usage').headers).toBeUndefined();
  });

  it('carries as payload of each message the JSON Schema its producers register, typed per entity type', () => {
    const byId: Record<string, TopicDefinition> = { changes: topics.changes, entities: topics.entities, usage: topics.usage };
    for (const [id, topic] of Object.entries(byId)) {
      expect(messageOf(id).payload).toEqual({ schemaFormat: 'application/schema+json;version=draft-07', schema: topicJsonSchema(topic) });
    }
    const branches = messageOf('entities').payload.schema.oneOf as { properties: { entityType: { const: string } } }[];
    expect(branches.map((branch) => branch.properties.entityType.const).sort()).toEqual([...ENTITY_TYPES].sort());
  });
});
