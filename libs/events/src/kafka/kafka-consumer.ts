import type { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import type { Logger } from '@timetable/observability';
import type { EventConsumer, IncomingEvent, SubscriptionOptions } from '../event-bus.js';
import { consumerLag, eventsConsumed, eventsRejected } from '../event-metrics.js';
import { validateEventValue } from '../validate-event.js';
import type { ValueCodec } from './schema-codec.js';

/**
 * One consumer group member. Offsets are committed only after the handler resolved; undecodable or
 * schema-violating messages are counted and skipped so one bad record never stalls the group.
 */
export class KafkaEventConsumer<T> implements EventConsumer {
  private consumer: Consumer | undefined;
  private running = false;
  /** Until the group assigned partitions, the position is unknown: not caught up. */
  private joined = false;
  private readonly lagByPartition = new Map<number, number>();
  /** Batches handled per partition, so a join-time measurement never overwrites a fresher batch's lag. */
  private readonly batchesByPartition = new Map<number, number>();

  constructor(
    private readonly kafka: Kafka,
    private readonly codec: ValueCodec,
    private readonly options: SubscriptionOptions<T>,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    const consumer = this.kafka.consumer({ groupId: this.options.groupId, allowAutoTopicCreation: false });
    this.consumer = consumer;
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      this.logger.error({ err: payload.error, group: this.options.groupId }, 'consumer crashed');
      if (!payload.restart) this.running = false;
    });
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      this.measureLag(payload.memberAssignment[this.options.topic.name] ?? []).catch((error: unknown) => {
        // Without a measurement the lag comes from the batches alone, as before the join.
        this.joined = true;
        this.logger.warn({ err: error, group: this.options.groupId }, 'could not measure consumer lag');
      });
    });
    await consumer.connect();
    await consumer.subscribe({ topic: this.options.topic.name, fromBeginning: this.options.fromBeginning });
    await consumer.run({ autoCommit: false, eachBatchAutoResolve: false, eachBatch: (payload) => this.handle(payload) });
    this.running = true;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.consumer?.disconnect();
  }

  isHealthy(): boolean {
    return this.running;
  }

  lag(): number {
    if (!this.joined) return Number.POSITIVE_INFINITY;
    let total = 0;
    for (const value of this.lagByPartition.values()) total += value;
    return total;
  }

  /**
   * On joining, the distance from the group's committed positions to the ends of the assigned partitions:
   * a replica restarted behind a busy topic reports its backlog before the first batch arrives.
   */
  private async measureLag(partitions: number[]): Promise<void> {
    const topic = this.options.topic.name;
    const batchesBefore = new Map(this.batchesByPartition);
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const [ends, [committed]] = await Promise.all([admin.fetchTopicOffsets(topic), admin.fetchOffsets({ groupId: this.options.groupId, topics: [topic] })]);
      for (const partition of this.lagByPartition.keys()) if (!partitions.includes(partition)) this.lagByPartition.delete(partition);
      for (const partition of partitions) {
        const end = ends.find((offsets) => offsets.partition === partition);
        if (!end || this.batchesByPartition.get(partition) !== batchesBefore.get(partition)) continue;
        const position = committed?.partitions.find((offsets) => offsets.partition === partition)?.offset ?? '-1';
        // No committed position yet: the group starts at the earliest (fromBeginning) or the latest offset.
        const start = position !== '-1' ? position : this.options.fromBeginning ? end.low : end.high;
        this.lagByPartition.set(partition, Math.max(0, Number(BigInt(end.high) - BigInt(start))));
      }
      this.joined = true;
      consumerLag.set({ group: this.options.groupId, topic }, this.lag());
    } finally {
      await admin.disconnect();
    }
  }

  private async handle({ batch, heartbeat, isRunning, isStale, resolveOffset }: EachBatchPayload): Promise<void> {
    const { topic, partition } = batch;
    const events: IncomingEvent<T>[] = [];
    for (const message of batch.messages) {
      const event = await this.decode(topic, partition, message);
      if (event) events.push(event);
    }
    if (!isRunning() || isStale()) return;
    if (events.length > 0) await this.options.handleBatch(events);
    const last = batch.messages.at(-1);
    if (!last) return;
    // Resolving moves the fetch position on; without it kafkajs fetches this batch again and again.
    resolveOffset(last.offset);
    await this.consumer?.commitOffsets([{ topic, partition, offset: (BigInt(last.offset) + 1n).toString() }]);
    eventsConsumed.inc({ group: this.options.groupId, topic }, events.length);
    const lag = Math.max(0, Number(BigInt(batch.highWatermark) - BigInt(last.offset) - 1n));
    this.lagByPartition.set(partition, lag);
    this.batchesByPartition.set(partition, (this.batchesByPartition.get(partition) ?? 0) + 1);
    consumerLag.set({ group: this.options.groupId, topic }, this.lag());
    await heartbeat();
  }

  private async decode(
    topic: string,
    partition: number,
    message: EachBatchPayload['batch']['messages'][number],
  ): Promise<IncomingEvent<T> | undefined> {
    const key = message.key?.toString('utf8') ?? '';
    try {
      const raw = message.value === null ? null : await this.codec.decode(message.value);
      const checked = validateEventValue(this.options.topic, raw);
      if (!checked.ok) throw new Error(checked.reason);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(message.headers ?? {})) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.map(String).join(',') : value.toString();
      }
      return { topic, key, value: checked.value as T | null, headers, partition, offset: message.offset };
    } catch (error) {
      eventsRejected.inc({ group: this.options.groupId, topic });
      this.logger.warn({ err: error, topic, partition, offset: message.offset, key }, 'skipping undecodable event');
      return undefined;
    }
  }
}
