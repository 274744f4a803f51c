import { ALL_TOPICS, type TopicDefinition } from '@timetable/contracts';
import type { Logger } from '@timetable/observability';
import type { EventBus, EventConsumer, OutgoingEvent, SubscriptionOptions } from './event-bus.js';
import { consumerRetries, eventsConsumed, eventsPublished } from './event-metrics.js';
import { ConsumerGroup, type GroupMember } from './in-process/consumer-group.js';
import { LoggedDeadLetters, type DeadLetterStore } from './in-process/dead-letter-store.js';
import { TopicLog } from './in-process/topic-log.js';
import { RefusedEventError } from './kafka/schema-codec.js';
import type { UnapplicableRecord } from './poison/apply-isolating.js';
import { describeFailure, reportPutAside } from './poison/put-aside.js';
import { validateEventValue } from './validate-event.js';

export interface InProcessBusSettings {
  /** The topics that exist (Kafka's would be created by the deployment); default the system's three. */
  topics: TopicDefinition[];
  /** Partitions per topic: members of one group share them, events of one key stay in one. */
  partitions: number;
  /** Records kept per partition of a topic that is not compacted (groups read as records arrive; this is
   * what a group that starts late can still read, and bounds the memory of a long-running process). */
  retention: number;
  /** Where records a handler could not apply are put aside (the outbox store's dead_letters table); by
   * default only the error log holds them. */
  deadLetters?: DeadLetterStore;
}

const DEFAULTS: InProcessBusSettings = { topics: ALL_TOPICS, partitions: 3, retention: 1_000 };
const MIN_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

/**
 * The embedded mode's bus, with Kafka's semantics in memory: topics are partitioned logs (compacted ones
 * keep the latest record per key), consumer groups share partitions and resume from their positions, and
 * `fromBeginning` reads what the topic retained, so the embedded composition does not depend on start order.
 * Unlike Kafka, publish resolves only after every running group of the topics it wrote to has handled its
 * records, and rejects with the handler's error when one has not, so the outbox relay deletes a row only once
 * it has really been processed and retries it otherwise. A group whose handler failed is handed its records
 * again, with a backoff, without waiting for the next publish, and one failing group holds up only the
 * publishes whose records it has to read. A record whose data a handler refuses on every try is put aside
 * (`deadLetters`) and the group moves past it, so the relay never stalls on one record. A value its topic's
 * schema refuses is refused at publish, as the Kafka producer refuses it. A handler must not await a
 * publish itself (deliveries run one at a time).
 */
export class InProcessBus implements EventBus {
  private readonly logs = new Map<string, TopicLog>();
  private readonly groups = new Map<string, ConsumerGroup>();
  private readonly settings: InProcessBusSettings;
  private readonly deadLetters: DeadLetterStore;
  /** Deliveries run one at a time, so a group never handles two batches of a partition at once. */
  private delivering: Promise<void> = Promise.resolve();
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelayMs = MIN_RETRY_MS;
  private closed = false;

  constructor(
    private readonly logger: Logger,
    settings: Partial<InProcessBusSettings> = {},
  ) {
    this.settings = { ...DEFAULTS, ...settings };
    this.deadLetters = settings.deadLetters ?? new LoggedDeadLetters(logger);
    for (const topic of this.settings.topics) this.logOf(topic);
  }

  connect(): Promise<void> {
    return Promise.resolve();
  }

  async disconnect(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    await this.delivering;
  }

  isHealthy(): boolean {
    return true;
  }

  async publish(events: OutgoingEvent[]): Promise<void> {
    // Every value is checked before any is appended: a refused batch leaves no trace, as with Kafka's producer.
    const accepted = events.map((event) => {
      const log = this.logs.get(event.topic);
      if (!log) throw new Error(`no topic ${event.topic} on the in-process bus`);
      const checked = validateEventValue(log.topic, event.value);
      if (!checked.ok) throw new RefusedEventError(event.topic, checked.reason);
      return { log, record: { topic: event.topic, key: event.key, value: checked.value, headers: event.headers ?? {} } };
    });
    const written = new Map<TopicLog, Map<number, number>>();
    for (const { log, record } of accepted) {
      const { partition, offset } = log.append(record);
      const partitions = written.get(log) ?? new Map<number, number>();
      partitions.set(partition, offset);
      written.set(log, partitions);
      eventsPublished.inc({ topic: record.topic });
    }
    await this.deliverAll();
    this.throwIfUnhandled(written);
  }

  subscribe<T>(options: SubscriptionOptions<T>): EventConsumer {
    const log = this.logOf(options.topic);
    const key = `${options.groupId}\u0000${options.topic.name}`;
    const group = this.groups.get(key) ?? new ConsumerGroup(options.groupId, log);
    this.groups.set(key, group);
    const member: GroupMember = { options: options as SubscriptionOptions, running: false };
    group.members.push(member);
    return {
      start: () => {
        group.joined(member);
        // Catching up on what the topic retained runs in the background, like a Kafka consumer's first fetch.
        this.deliverAll().catch((error: unknown) =>
          this.logger.warn({ err: error, group: options.groupId, topic: options.topic.name }, 'catching up failed; retried with the next publish'),
        );
        return Promise.resolve();
      },
      stop: async () => {
        member.running = false;
        // A batch already handed to this member finishes before the service closes what the handler uses.
        await this.delivering;
      },
      isHealthy: () => member.running,
      lag: () => group.lag(),
    };
  }

  /** Every group reads what it has not handled yet; a group whose handler failed is tried again later. */
  private deliverAll(): Promise<void> {
    this.delivering = this.delivering.then(async () => {
      let failed = false;
      for (const group of this.groups.values()) {
        const labels = { group: group.id, topic: group.topicName };
        const handled = (count: number) => eventsConsumed.inc(labels, count);
        await group.deliver({ handled, putAside: (records) => this.putAside(group.id, records) }).catch((error: unknown) => {
          failed = true;
          consumerRetries.inc(labels);
          this.logger.warn({ err: error, ...labels }, 'handler failed; its records are handed over again');
        });
      }
      for (const log of this.logs.values()) log.trim(this.unreadOf(log));
      if (failed) this.retryLater();
      else this.retryDelayMs = MIN_RETRY_MS;
    });
    return this.delivering;
  }

  private async putAside(group: string, records: UnapplicableRecord<unknown>[]): Promise<void> {
    const described = records.map(({ event, error, attempts }) => ({ group, event, error: describeFailure(error), attempts }));
    await this.deadLetters.putAside(described);
    reportPutAside(
      this.logger,
      described.map(({ event, error, attempts }) => ({ group, topic: event.topic, key: event.key, partition: event.partition, offset: event.offset, error, attempts })),
    );
  }

  private retryLater(): void {
    if (this.retryTimer || this.closed) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.deliverAll();
    }, this.retryDelayMs);
    this.retryTimer.unref();
    this.retryDelayMs = Math.min(this.retryDelayMs * 2, MAX_RETRY_MS);
  }

  /** Rejects unless every running group of the written topics has read past what this publish wrote. */
  private throwIfUnhandled(written: Map<TopicLog, Map<number, number>>): void {
    for (const group of this.groups.values()) {
      const partitions = written.get(group.log);
      if (!partitions || !group.running) continue;
      for (const [partition, offset] of partitions) {
        if ((group.position(partition) ?? Number.POSITIVE_INFINITY) <= offset) {
          throw group.lastError ?? new Error(`consumer group ${group.id} has not handled ${group.topicName} yet`);
        }
      }
    }
  }

  /** Per partition, the lowest position of the log's groups: what retention must keep for them. */
  private unreadOf(log: TopicLog): (number | undefined)[] {
    // A group with no running member no longer holds records back, as Kafka's retention does not wait for it.
    const groups = [...this.groups.values()].filter((group) => group.log === log && group.running);
    return Array.from({ length: log.partitionCount }, (_, partition) => {
      const positions = groups.map((group) => group.position(partition)).filter((position) => position !== undefined);
      return positions.length === 0 ? undefined : Math.min(...positions);
    });
  }

  private logOf(topic: TopicDefinition): TopicLog {
    const existing = this.logs.get(topic.name);
    if (existing) return existing;
    const log = new TopicLog(topic, this.settings.partitions, this.settings.retention);
    this.logs.set(topic.name, log);
    return log;
  }
}
