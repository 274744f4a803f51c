import { CompressionTypes, Kafka, type Producer } from 'kafkajs';
import type { TopicDefinition } from '@timetable/contracts';
import type { Logger } from '@timetable/observability';
import type { EventBus, EventConsumer, EventOf, OutgoingEvent, SubscriptionOptions } from '../event-bus.js';
import { eventsPublished } from '../event-metrics.js';
import { KafkaDeadLetterSink } from './dead-letters.js';
import { ensureTopics } from './ensure-topics.js';
import { KafkaEventConsumer } from './kafka-consumer.js';
import { kafkaLogCreator } from './kafka-logger.js';
import { PlainJsonCodec, RefusedEventError, RegistryCodec, type ValueCodec } from './schema-codec.js';

export interface KafkaBusSettings {
  brokers: string[];
  clientId: string;
  /** Confluent-compatible registry (ccompat) base URL; unset means plain JSON values. */
  schemaRegistryUrl?: string | undefined;
  topics: TopicDefinition[];
  partitions?: number;
  /**
   * Put in front of every topic name and consumer group id (KAFKA_TOPIC_PREFIX), so several environments
   * share one cluster without reading each other's events; services keep using the logical names.
   */
  topicPrefix?: string | undefined;
  /** How long a consumer retries a failing batch step before it gives up (CONSUMER_RETRY_BUDGET_SECONDS). */
  consumerRetryBudgetMs?: number | undefined;
  /**
   * Called when a consumer gave up for good (retry budget spent, or kafkajs will not restart it). The
   * process should end non-zero so the platform restarts it; by default it does exactly that.
   */
  onConsumerFailure?: (error: unknown) => void;
  logger: Logger;
}

/** Long enough to ride out a database or registry restart; short enough that a stuck consumer is restarted. */
export const DEFAULT_CONSUMER_RETRY_BUDGET_MS = 300_000;

/** The distributed mode's bus: kafkajs with acks=all, idempotent producer, registry-encoded values. */
export class KafkaBus implements EventBus {
  private readonly kafka: Kafka;
  private readonly codec: ValueCodec;
  private producer: Producer | undefined;
  private connected = false;
  private readonly prefix: string;

  constructor(private readonly settings: KafkaBusSettings) {
    this.prefix = settings.topicPrefix ?? '';
    this.kafka = new Kafka({
      clientId: settings.clientId,
      brokers: settings.brokers,
      logCreator: kafkaLogCreator(settings.logger),
      retry: { retries: 8, initialRetryTime: 200 },
    });
    this.codec = settings.schemaRegistryUrl ? new RegistryCodec(settings.schemaRegistryUrl, settings.logger) : new PlainJsonCodec();
  }

  async connect(): Promise<void> {
    await ensureTopics(this.kafka, this.settings.topics.map((topic) => this.physical(topic)), this.settings.partitions ?? 3);
    await this.codec.prepare(this.settings.topics.map((topic) => this.physical(topic)));
    this.producer = this.kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    await this.producer.connect();
    this.connected = true;
  }

  async disconnect(): Promise<void> {
    this.connected = false;
    await this.producer?.disconnect();
  }

  isHealthy(): boolean {
    return this.connected;
  }

  async publish(events: OutgoingEvent[]): Promise<void> {
    if (!this.producer) throw new Error('KafkaBus.publish before connect');
    const byTopic = new Map<string, { key: string; value: Buffer | null; headers: Record<string, string> }[]>();
    for (const event of events) {
      const topic = this.prefix + event.topic;
      // A tombstone means "delete this key" only where compaction keeps the latest value per key.
      if (event.value === null && !this.settings.topics.some((known) => known.name === event.topic && known.compacted)) {
        throw new RefusedEventError(topic, 'null value on a non-compacted topic');
      }
      const value = event.value === null ? null : await this.codec.encode(topic, event.value);
      const messages = byTopic.get(topic) ?? [];
      messages.push({ key: event.key, value, headers: event.headers ?? {} });
      byTopic.set(topic, messages);
    }
    await this.producer.sendBatch({
      acks: -1,
      compression: CompressionTypes.None,
      topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
    });
    for (const [topic, messages] of byTopic) eventsPublished.inc({ topic }, messages.length);
  }

  subscribe<D extends TopicDefinition>(options: SubscriptionOptions<EventOf<D>> & { topic: D }): EventConsumer {
    const physical = { ...options, groupId: this.prefix + options.groupId, topic: this.physical(options.topic) };
    const { logger } = this.settings;
    return new KafkaEventConsumer(this.kafka, physical, {
      codec: this.codec,
      deadLetters: new KafkaDeadLetterSink(() => this.producer),
      retryBudgetMs: this.settings.consumerRetryBudgetMs ?? DEFAULT_CONSUMER_RETRY_BUDGET_MS,
      onFailure: this.settings.onConsumerFailure ?? (() => {
        logger.fatal('a consumer gave up; exiting so the process is restarted');
        process.exit(1);
      }),
      logger,
    });
  }

  private physical<T extends TopicDefinition>(topic: T): T {
    return { ...topic, name: this.prefix + topic.name };
  }
}
