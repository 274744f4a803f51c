import type { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import type { Logger } from '@timetable/observability';
import type { EventConsumer, IncomingEvent, SubscriptionOptions } from '../event-bus.js';
import { consumerLag, consumerRetries, eventsConsumed, eventsDeadLettered } from '../event-metrics.js';
import { applyIsolating } from '../poison/apply-isolating.js';
import { describeFailure, reportPutAside, type PutAsideNotice } from '../poison/put-aside.js';
import { retryStep, RetryBudgetExhaustedError, type BatchRetrySettings } from './batch-retry.js';
import type { DeadLetter, DeadLetterSink } from './dead-letters.js';
import { ConsumerLagMeter } from './consumer-lag-meter.js';
import { decodeMessage, letterOf, type Decoded, type DecodingContext } from './decode-message.js';
import type { ValueCodec } from './schema-codec.js';

export interface KafkaConsumerSettings {
  codec: ValueCodec;
  deadLetters: DeadLetterSink;
  /** How long a failing step (decode during a registry outage, a handler whose database is down) is retried. */
  retryBudgetMs: number;
  /** Called once when the consumer is dead for good; the process should end non-zero and be restarted. */
  onFailure(error: unknown): void;
  logger: Logger;
}

/**
 * One consumer group member. A position is committed only after every message before it was handled or,
 * when it can never be decoded or its handler refused its data on every try, written to the topic's
 * dead-letter topic. A step that fails because something is down is retried, never skipped; past the retry
 * budget, and when kafkajs itself gives up, the consumer reports a failure so the process ends and its
 * replacement resumes from the committed offset.
 */
export class KafkaEventConsumer<T> implements EventConsumer {
  private consumer: Consumer | undefined;
  private running = false;
  private failed = false;
  private readonly lagMeter: ConsumerLagMeter;
  private readonly decoding: DecodingContext;

  constructor(
    private readonly kafka: Kafka,
    private readonly options: SubscriptionOptions<T>,
    private readonly settings: KafkaConsumerSettings,
  ) {
    this.lagMeter = new ConsumerLagMeter(kafka, options.groupId, options.topic.name, options.fromBeginning);
    this.decoding = { codec: settings.codec, topic: options.topic, group: options.groupId, logger: settings.logger };
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
        const outcome = await retryStep('decode', () => decodeMessage<T>(this.decoding, batch.partition, message), retry);
        if (!outcome.done) return;
        decoded.push(outcome.value);
      }
      const events = decoded.flatMap((item) => ('event' in item ? [item.event] : []));
      if (!(await this.putAside(decoded.flatMap((item) => ('deadLetter' in item ? [item.deadLetter] : [])), retry))) return;
      const handled = await retryStep('handle', () => this.apply(events, payload), retry);
      if (!handled.done || !(await this.putAside(handled.value, retry))) return;
      await this.commit(payload, events.length - handled.value.length);
    } catch (error) {
      if (!(error instanceof RetryBudgetExhaustedError)) throw error;
      // Not thrown to kafkajs, which would retry the batch on its own schedule: this consumer is done.
      this.fail(error);
    }
  }

  /** Applies the events; returns the dead letters of those whose data the handler refused on every try. */
  private async apply(events: IncomingEvent<T>[], { batch, heartbeat }: EachBatchPayload): Promise<DeadLetter[]> {
    if (events.length === 0) return [];
    const unapplicable = await applyIsolating(events, this.options.handleBatch, { afterRecord: heartbeat });
    const messages = new Map(batch.messages.map((message) => [message.offset, message]));
    return unapplicable.map(({ event, error, attempts }) =>
      letterOf(messages.get(event.offset)!, {
        topic: batch.topic,
        partition: batch.partition,
        group: this.options.groupId,
        error: describeFailure(error),
        reason: 'unapplicable',
        attempts,
      }),
    );
  }

  /** Writes dead letters to the topic's dead-letter topic, then counts them; false if the batch was given back. */
  private async putAside(letters: DeadLetter[], retry: BatchRetrySettings): Promise<boolean> {
    if (letters.length === 0) return true;
    const sent = await retryStep('dead-letter', () => this.settings.deadLetters.send(letters), retry);
    if (!sent.done) return false;
    const undecodable = letters.filter((letter) => letter.reason === 'undecodable').length;
    if (undecodable > 0) eventsDeadLettered.inc({ group: this.options.groupId, topic: this.options.topic.name, reason: 'undecodable' }, undecodable);
    reportPutAside(this.settings.logger, letters.filter((letter) => letter.reason === 'unapplicable').map(noticeOf));
    return true;
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
}

function noticeOf({ group, topic, partition, offset, key, error, attempts }: DeadLetter): PutAsideNotice {
  return { group, topic, partition, offset, key: key?.toString('utf8') ?? '', error, attempts };
}
