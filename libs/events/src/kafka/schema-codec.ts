import { COMPATIBILITY, SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { topicJsonSchema, type TopicDefinition } from '@timetable/contracts';
import type { Logger } from '@timetable/observability';
import { validateEventValue } from '../validate-event.js';

// ajv-formats is CommonJS with a default export; under NodeNext its callable sits on `.default`.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/**
 * A message that can never be decoded, whoever retries it: not in the wire format, not JSON, or refused by
 * its own schema. Anything else a codec throws (the registry unreachable) is an outage, worth waiting for.
 */
export class UndecodableMessageError extends Error {
  override readonly name = 'UndecodableMessageError';
}

/** Turns event values into Kafka message bytes and back. */
export interface ValueCodec {
  prepare(topics: TopicDefinition[]): Promise<void>;
  encode(topic: string, value: unknown): Promise<Buffer>;
  /** Throws UndecodableMessageError for a message no retry can decode. */
  decode(buffer: Buffer): Promise<unknown>;
}

/** A value its topic's schema refuses: the producer sends nothing. */
export class RefusedEventError extends Error {
  constructor(topic: string, reason: string, options?: ErrorOptions) {
    super(`value refused by the schema of ${topic}: ${reason}`, options);
    this.name = 'RefusedEventError';
  }
}

/** A registry that accepts the connection but never answers must not hold a start or a batch forever. */
const REGISTRY_TIMEOUT_MS = 10_000;

type RegistryMiddleware = NonNullable<ConstructorParameters<typeof SchemaRegistry>[0]['middlewares']>[number];

/** A middleware of the registry client's HTTP layer that gives every request a timeout. */
function requestTimeout(ms: number): RegistryMiddleware {
  return () => ({
    async prepareRequest(next) {
      const request = await next();
      return request.timeout() ? request : request.enhance({ timeout: ms });
    },
  });
}

/** The registry answered and said no (an incompatible or invalid schema), as opposed to not answering. */
function refusedByRegistry(error: unknown): boolean {
  const status = (error as { status?: number }).status;
  return (error as Error).name === 'ConfluentSchemaRegistryCompatibilityError' || status === 409 || status === 422;
}

/** Anything the work throws is the message's own fault. */
async function permanently<T>(work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw new UndecodableMessageError((error as Error).message);
  }
}

/** Without a registry: plain JSON, checked against the topic's zod schema before it is sent. */
export class PlainJsonCodec implements ValueCodec {
  private readonly topics = new Map<string, TopicDefinition>();

  prepare(topics: TopicDefinition[]): Promise<void> {
    for (const topic of topics) this.topics.set(topic.name, topic);
    return Promise.resolve();
  }

  encode(topic: string, value: unknown): Promise<Buffer> {
    const definition = this.topics.get(topic);
    if (definition === undefined) return Promise.reject(new Error(`Unknown topic ${topic}`));
    const checked = validateEventValue(definition, value);
    if (!checked.ok) return Promise.reject(new RefusedEventError(topic, checked.reason));
    return Promise.resolve(Buffer.from(JSON.stringify(value)));
  }

  decode(buffer: Buffer): Promise<unknown> {
    return permanently(() => JSON.parse(buffer.toString('utf8')) as unknown);
  }
}

/**
 * Confluent wire format (magic byte, schema id, JSON) against a Confluent-compatible registry.
 * Subjects follow TopicNameStrategy (`<topic>-value`) with BACKWARD compatibility.
 */
export class RegistryCodec implements ValueCodec {
  private readonly registry: SchemaRegistry;
  private readonly schemaIds = new Map<string, number>();

  constructor(
    registryUrl: string,
    private readonly logger?: Logger,
  ) {
    const ajv = new Ajv({ strict: false, allErrors: false });
    addFormats(ajv);
    // The client types its ajv against its own copy of the package; the instance is compatible at runtime.
    const jsonOptions = { ajvInstance: ajv, detailedErrorPaths: true } as unknown as { ajvInstance: undefined };
    this.registry = new SchemaRegistry({ host: registryUrl, middlewares: [requestTimeout(REGISTRY_TIMEOUT_MS)] }, { [SchemaType.JSON]: jsonOptions });
  }

  /**
   * Registers every topic's schema. A registry that refuses one (an incompatible change) stops the start;
   * a registry that does not answer does not: consumers need only schema fetches, which they retry, and a
   * producer's encode fails (and its outbox waits) until the background registration got through.
   */
  async prepare(topics: TopicDefinition[]): Promise<void> {
    try {
      await this.registerAll(topics);
    } catch (error) {
      if (refusedByRegistry(error)) throw error;
      this.logger?.warn({ err: error }, 'schema registry unavailable; registering in the background');
      this.registerInBackground(topics);
    }
  }

  private async registerAll(topics: TopicDefinition[]): Promise<void> {
    for (const topic of topics) this.schemaIds.set(topic.name, await this.register(topic));
  }

  private registerInBackground(topics: TopicDefinition[], delayMs = 1_000): void {
    setTimeout(() => {
      this.registerAll(topics).then(
        () => this.logger?.info('schema registry reachable again; schemas registered'),
        (error: unknown) => {
          if (refusedByRegistry(error)) this.logger?.error({ err: error }, 'schema registry refused a schema');
          else this.registerInBackground(topics, Math.min(30_000, delayMs * 2));
        },
      );
    }, delayMs).unref();
  }

  /**
   * The client creates a new subject, then sets its compatibility in a second request: processes starting
   * together race between the two (one sees the registry's default and is refused, another's PUT of the
   * rule conflicts). A retry finds the subject settled on BACKWARD.
   */
  private async register(topic: TopicDefinition, attempt = 1): Promise<number> {
    try {
      const { id } = await this.registry.register(
        { type: SchemaType.JSON, schema: JSON.stringify(topicJsonSchema(topic)) },
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

  /** The client validates the value against the registered schema (ajv) before it encodes it. */
  async encode(topic: string, value: unknown): Promise<Buffer> {
    const id = this.schemaIds.get(topic);
    if (id === undefined) throw new Error(`No schema registered for topic ${topic} yet (the registry has not answered)`);
    try {
      return await this.registry.encode(id, value);
    } catch (error) {
      // The client does not export its error classes; with detailedErrorPaths each path carries its message.
      if ((error as Error).name !== 'ConfluentSchemaRegistryValidationError') throw error;
      const paths = (error as { paths: { path: string[]; message: string }[] }).paths.map((entry) => `${entry.path.join('')} ${entry.message}`);
      throw new RefusedEventError(topic, paths.join('; '), { cause: error });
    }
  }

  /**
   * The schema fetch is the only step that depends on the registry being up: its failure is an outage
   * (retried by the consumer), except a 404, which says the id does not exist. Framing, JSON and schema
   * violations are the message's own fault.
   */
  async decode(buffer: Buffer): Promise<unknown> {
    if (buffer.length < 5 || buffer[0] !== 0) throw new UndecodableMessageError('not in the registry wire format (magic byte 0 and a schema id)');
    const schemaId = buffer.readInt32BE(1);
    try {
      await this.registry.getSchema(schemaId);
    } catch (error) {
      if ((error as { status?: number }).status === 404) throw new UndecodableMessageError(`schema ${schemaId} is not in the registry`);
      throw error;
    }
    return permanently(() => this.registry.decode(buffer) as Promise<unknown>);
  }
}
