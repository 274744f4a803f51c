import { CompressionTypes, Kafka, type Producer } from 'kafkajs';
import type { TopicDefinition } from '@timetable/contracts';
import type { Logger } from '@timetable/observability';
import type { EventBus, EventConsumer, OutgoingEvent, SubscriptionOptions } from '../event-bus.js';
import { eventsPublished } from '../event-metrics.js';
import { KafkaEventConsumer } from './kafka-consumer.js';
import { kafkaLogCreator } from './kafka-logger.js';
import { PlainJsonCodec, RegistryCodec, type ValueCodec } from './schema-codec.js';

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
  logger: Logger;
}

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
    this.codec = settings.schemaRegistryUrl ? new RegistryCodec(settings.schemaRegistryUrl) : new PlainJsonCodec();
  }

  async connect(): Promise<void> {
    await this.ensureTopics();
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

  subscribe<T>(options: SubscriptionOptions<T>): EventConsumer {
    const physical = { ...options, groupId: this.prefix + options.groupId, topic: this.physical(options.topic) };
    return new KafkaEventConsumer(this.kafka, this.codec, physical, this.settings.logger);
  }

  private physical<T extends TopicDefinition>(topic: T): T {
    return { ...topic, name: this.prefix + topic.name };
  }

  private async ensureTopics(): Promise<void> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const existing = new Set(await admin.listTopics());
      const missing = this.settings.topics.map((topic) => this.physical(topic)).filter((topic) => !existing.has(topic.name));
      if (missing.length === 0) return;
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((topic) => ({
          topic: topic.name,
          numPartitions: this.settings.partitions ?? 3,
          configEntries: topic.compacted ? [{ name: 'cleanup.policy', value: 'compact' }] : [],
        })),
      });
    } finally {
      await admin.disconnect();
    }
  }
}
