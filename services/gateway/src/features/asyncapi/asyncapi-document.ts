import { z } from 'zod';
import { topicJsonSchema, type TopicDocumentation } from '@timetable/contracts';

export type AsyncApiDocument = Record<string, unknown> & {
  channels: Record<string, Record<string, unknown>>;
  components: { messages: Record<string, AsyncApiMessage> };
};

export interface AsyncApiMessage extends Record<string, unknown> {
  /** The value's JSON Schema, exactly as registered under `<topic>-value`. */
  payload: { schemaFormat: string; schema: Record<string, unknown> };
}

const KAFKA_BINDING = '0.5.0';
/** The registry holds draft-07 schemas (see topicJsonSchema); the payload says so. */
const PAYLOAD_FORMAT = 'application/schema+json;version=draft-07';

/**
 * The AsyncAPI 3.0 document of the Kafka topics, built from the same contracts the services use: each
 * message's payload schema is the JSON Schema the producers register, byte for byte.
 */
export function buildAsyncApiDocument(documentation: TopicDocumentation[]): AsyncApiDocument {
  const channels: Record<string, Record<string, unknown>> = {};
  const operations: Record<string, Record<string, unknown>> = {};
  const messages: Record<string, AsyncApiMessage> = {};
  for (const entry of documentation) {
    const { id, topic } = entry;
    messages[id] = message(entry);
    channels[id] = {
      address: topic.name,
      title: entry.title,
      description: entry.description,
      messages: { [id]: { $ref: `#/components/messages/${id}` } },
      bindings: {
        kafka: { topic: topic.name, topicConfiguration: { 'cleanup.policy': [topic.compacted ? 'compact' : 'delete'] }, bindingVersion: KAFKA_BINDING },
      },
    };
    operations[`receive${id.charAt(0).toUpperCase()}${id.slice(1)}`] = {
      action: 'receive',
      channel: { $ref: `#/channels/${id}` },
      messages: [{ $ref: `#/channels/${id}/messages/${id}` }],
      summary: `Consume ${topic.name}`,
    };
  }
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Timetable events',
      version: '1.0.0',
      description:
        'The Kafka topics of the timetable service, for other university systems. With a schema registry ' +
        '(SCHEMA_REGISTRY_URL) every value is in the Confluent wire format (byte 0, the 4-byte schema id, then ' +
        'the JSON) and its schema is registered under <topic>-value with BACKWARD compatibility; without one, ' +
        'values are plain JSON. A deployment may put KAFKA_TOPIC_PREFIX in front of every topic name.',
    },
    defaultContentType: 'application/json',
    channels,
    operations,
    components: { messages },
  };
}

function message(entry: TopicDocumentation): AsyncApiMessage {
  return {
    name: entry.id,
    title: entry.title,
    contentType: 'application/json',
    ...(entry.headers ? { headers: withoutDialect(z.toJSONSchema(entry.headers, { target: 'draft-7' }) as Record<string, unknown>) } : {}),
    payload: { schemaFormat: PAYLOAD_FORMAT, schema: topicJsonSchema(entry.topic) },
    bindings: {
      kafka: {
        key: { type: 'string', pattern: entry.key.pattern, description: entry.key.description, examples: [entry.key.example] },
        schemaIdLocation: 'payload',
        schemaIdPayloadEncoding: 'confluent',
        schemaLookupStrategy: 'TopicNameStrategy',
        bindingVersion: KAFKA_BINDING,
      },
    },
  };
}

/** Header schemas are AsyncAPI schemas, which name no JSON Schema dialect of their own. */
function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}
