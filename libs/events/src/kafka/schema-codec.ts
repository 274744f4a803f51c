import { SchemaRegistry, SchemaType, COMPATIBILITY } from '@kafkajs/confluent-schema-registry';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { z } from 'zod';
import type { TopicDefinition } from '@timetable/contracts';

// ajv-formats is CommonJS with a default export; under NodeNext its callable sits on `.default`.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** Turns event values into Kafka message bytes and back. */
export interface ValueCodec {
  prepare(topics: TopicDefinition[]): Promise<void>;
  encode(topic: string, value: unknown): Promise<Buffer>;
  decode(buffer: Buffer): Promise<unknown>;
}

/** Without a registry: plain JSON, validated by the consumer's zod schema. */
export class PlainJsonCodec implements ValueCodec {
  prepare(): Promise<void> {
    return Promise.resolve();
  }

  encode(_topic: string, value: unknown): Promise<Buffer> {
    return Promise.resolve(Buffer.from(JSON.stringify(value)));
  }

  decode(buffer: Buffer): Promise<unknown> {
    return Promise.resolve(JSON.parse(buffer.toString('utf8')));
  }
}

/** The registry's JSON Schema of a topic's value, generated from the same zod schema the code uses. */
export function jsonSchemaOf(topic: TopicDefinition): Record<string, unknown> {
  // The registry client validates with its own ajv (draft-07 at most), hence the target.
  return z.toJSONSchema(topic.schema, { target: 'draft-7' }) as Record<string, unknown>;
}

/**
 * Confluent wire format (magic byte, schema id, JSON) against a Confluent-compatible registry.
 * Subjects follow TopicNameStrategy (`<topic>-value`) with BACKWARD compatibility.
 */
export class RegistryCodec implements ValueCodec {
  private readonly registry: SchemaRegistry;
  private readonly schemaIds = new Map<string, number>();

  constructor(registryUrl: string) {
    const ajv = new Ajv({ strict: false, allErrors: false });
    addFormats(ajv);
    // The client types its ajv against its own copy of the package; the instance is compatible at runtime.
    const jsonOptions = { ajvInstance: ajv } as unknown as { ajvInstance: undefined };
    this.registry = new SchemaRegistry({ host: registryUrl }, { [SchemaType.JSON]: jsonOptions });
  }

  async prepare(topics: TopicDefinition[]): Promise<void> {
    for (const topic of topics) this.schemaIds.set(topic.name, await this.register(topic));
  }

  /**
   * The client creates a new subject, then sets its compatibility in a second request: processes starting
   * together race between the two (one sees the registry's default and is refused, another's PUT of the
   * rule conflicts). A retry finds the subject settled on BACKWARD.
   */
  private async register(topic: TopicDefinition, attempt = 1): Promise<number> {
    try {
      const { id } = await this.registry.register(
        { type: SchemaType.JSON, schema: JSON.stringify(jsonSchemaOf(topic)) },
        { subject: `${topic.name}-value`, compatibility: COMPATIBILITY.BACKWARD },
      );
      return id;
    } catch (error) {
      const racing = (error as Error).name === 'ConfluentSchemaRegistryCompatibilityError' || (error as { status?: number }).status === 409;
      if (attempt >= 5 || !racing) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      return this.register(topic, attempt + 1);
    }
  }

  encode(topic: string, value: unknown): Promise<Buffer> {
    const id = this.schemaIds.get(topic);
    if (id === undefined) throw new Error(`No schema registered for topic ${topic}`);
    return this.registry.encode(id, value);
  }

  decode(buffer: Buffer): Promise<unknown> {
    return this.registry.decode(buffer) as Promise<unknown>;
  }
}
