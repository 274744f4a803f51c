import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { Logger } from '@timetable/observability';
import type { EventConsumer, IncomingEvent, SubscriptionOptions } from '../event-bus.js';
import { consumerLag, consumerRetries, eventsConsumed, eventsDeadLettered } from '../event-metrics.js';
import { validateEventValue } from '../validate-event.js';
import { retryStep, RetryBudgetExhaustedError, type BatchRetrySettings } from './batch-retry.js';
import type { DeadLetter, DeadLetterSink } from './dead-letters.js';
import { ConsumerLagMeter } from './consumer-lag-meter.js';
import { UndecodableMessageError, type ValueCodec } from './schema-codec.js';

export interface KafkaConsumerSettings {
  codec: ValueCodec;
  deadLetters: DeadLetterSink;
  /** How long a failing step (decode during a registry outage, a handler whose database is down) is retried. */
  retryBudgetMs: number;
  /** Called once when the consumer is dead for good; the process should end non-zero and be restarted. */
  onFailure(error: unknown): void;
  logger: Logger;
}

type Decoded<T> = { event: IncomingEvent<T> } | { deadLetter: DeadLetter };

/**
 * One consumer group member. A position is committed only after every message before it was handled or,
 * when it can never be decoded, written to the topic's dead-letter topic. A step that fails because
 * something is down is retried, never skipped; past the retry budget, and when kafkajs itself gives up,
 * the consumer reports a failure so the process ends and its replacement resumes from the committed offset.
 */
export class KafkaEventConsumer<T> implements EventConsumer {
  private consumer: Consumer | undefined;
  private running = false;
  private failed = false;
  private readonly lagMeter: ConsumerLagMeter;

  constructor(
    private readonly kafka: Kafka,
    private readonly options: SubscriptionOptions<T>,
    private readonly settings: KafkaConsumerSettings,
  ) {
    this.lagMeter = new ConsumerLagMeter(kafka, options.groupId, options.topic.name, options.fromBeginning);
  }

  async start(): Promise<void> {
    const consumer = this.kafka.consumer({ groupId: this.options.groupId, allowAutoTopicCreation: false });
    this.consumer = consumer;
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      this.settings.logger.error({ err: payload.error, group: this.options.groupId, restart: payload.restart }, 'consumer crashed');
      if (!payload.restart) this.fail(payload.error);
    });
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      this.lagMeter
        .measureAssigned(payload.memberAssignment[this.options.topic.name] ?? [])
        .then(() => consumerLag.set({ group: this.options.groupId, topic: this.options.topic.name }, this.lagMeter.total()))
        .catch((error: unknown) => this.settings.logger.warn({ err: error, group: this.options.groupId }, 'could not measure consumer lag'));
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

  /** Running and not given up; a consumer waiting out an outage is still healthy. */
  isHealthy(): boolean {
    return this.running && !this.failed;
  }

  lag(): number {
    return this.lagMeter.total();
  }

  private fail(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.settings.logger.fatal({ err: error, group: this.options.groupId, topic: this.options.topic.name }, 'consumer gave up');
    this.settings.onFailure(error);
  }

  private async handle(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const retry = this.retrySettings(payload);
    try {
      const decoded: Decoded<T>[] = [];
      for (const message of batch.messages) {
        const outcome = await retryStep('decode', () => this.decode(batch.topic, batch.partition, message), retry);
        if (!outcome.done) return;
        decoded.push(outcome.value);
      }
      const events = decoded.flatMap((item) => ('event' in item ? [item.event] : []));
      const deadLetters = decoded.flatMap((item) => ('deadLetter' in item ? [item.deadLetter] : []));
      if (deadLetters.length > 0) {
        const sent = await retryStep('dead-letter', () => this.settings.deadLetters.send(deadLetters), retry);
        if (!sent.done) return;
        eventsDeadLettered.inc({ group: this.options.groupId, topic: batch.topic }, deadLetters.length);
      }
      if (events.length > 0) {
        const handled = await retryStep('handle', () => this.options.handleBatch(events), retry);
        if (!handled.done) return;
      }
      await this.commit(payload, events.length);
    } catch (error) {
      if (!(error instanceof RetryBudgetExhaustedError)) throw error;
      // Not thrown to kafkajs, which would retry the batch on its own schedule: this consumer is done.
      this.fail(error);
    }
  }

  private async commit({ batch, heartbeat, isRunning, isStale, resolveOffset }: EachBatchPayload, handled: number): Promise<void> {
    const last = batch.messages.at(-1);
    if (!last || !isRunning() || isStale()) return;
    // Resolving moves the fetch position on; without it kafkajs fetches this batch again and again.
    resolveOffset(last.offset);
    await this.consumer?.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: (BigInt(last.offset) + 1n).toString() }]);
    eventsConsumed.inc({ group: this.options.groupId, topic: batch.topic }, handled);
    this.lagMeter.recordBatch(batch.partition, batch.highWatermark, last.offset);
    consumerLag.set({ group: this.options.groupId, topic: batch.topic }, this.lagMeter.total());
    await heartbeat();
  }

  private retrySettings({ batch, heartbeat, isRunning, isStale }: EachBatchPayload): BatchRetrySettings {
    return {
      budgetMs: this.settings.retryBudgetMs,
      stillOwned: () => this.running && !this.failed && isRunning() && !isStale(),
      heartbeat,
      onRetry: (error, attempt, delayMs) => {
        consumerRetries.inc({ group: this.options.groupId, topic: batch.topic });
        this.settings.logger.warn({ err: error, group: this.options.groupId, topic: batch.topic, partition: batch.partition, attempt, delayMs }, 'batch step failed; retrying');
      },
    };
  }

  /** An event, a dead letter for a message no retry can decode, or a throw for an outage (retried). */
  private async decode(topic: string, partition: number, message: KafkaMessage): Promise<Decoded<T>> {
    const key = message.key?.toString('utf8') ?? '';
    const headers = headersOf(message);
    try {
      const raw = message.value === null ? null : await this.settings.codec.decode(message.value);
      const checked = validateEventValue(this.options.topic, raw);
      if (!checked.ok) throw new UndecodableMessageError(checked.reason);
      return { event: { topic, key, value: checked.value as T | null, headers, partition, offset: message.offset } };
    } catch (error) {
      if (!(error instanceof UndecodableMessageError)) throw error;
      this.settings.logger.warn({ err: error, topic, partition, offset: message.offset, key }, 'undecodable event goes to the dead-letter topic');
      return {
        deadLetter: { topic, partition, offset: message.offset, group: this.options.groupId, key: message.key, value: message.value, headers, error: error.message },
      };
    }
  }
}

function headersOf(message: KafkaMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers ?? {})) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.map(String).join(',') : value.toString();
  }
  return headers;
}
