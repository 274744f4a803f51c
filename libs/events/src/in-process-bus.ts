import { ALL_TOPICS, type TopicDefinition } from '@timetable/contracts';
import type { Logger } from '@timetable/observability';
import type { EventBus, EventConsumer, OutgoingEvent, SubscriptionOptions } from './event-bus.js';
import { eventsConsumed, eventsPublished } from './event-metrics.js';
import { ConsumerGroup, type GroupMember } from './in-process/consumer-group.js';
import { TopicLog } from './in-process/topic-log.js';
import { RefusedEventError } from './kafka/schema-codec.js';
import { validateEventValue } from './validate-event.js';

export interface InProcessBusSettings {
  /** The topics that exist (Kafka's would be created by the deployment); default the system's three. */
  topics: TopicDefinition[];
  /** Partitions per topic: members of one group share them, events of one key stay in one. */
  partitions: number;
  /** Records kept per partition of a topic that is not compacted (groups read as records arrive; this is
   * what a group that starts late can still read, and bounds the memory of a long-running process). */
  retention: number;
}

const DEFAULTS: InProcessBusSettings = { topics: ALL_TOPICS, partitions: 3, retention: 1_000 };

/**
 * The embedded mode's bus, with Kafka's semantics in memory: topics are partitioned logs (compacted ones
 * keep the latest record per key), consumer groups share partitions and resume from their positions, and
 * `fromBeginning` reads what the topic retained, so the embedded composition does not depend on start order.
 * Unlike Kafka, publish resolves only after every running group handled the events (and rejects if one
 * failed), so the outbox relay deletes a row only once it has really been processed and retries it otherwise.
 * A value its topic's schema refuses is refused at publish, as the Kafka producer refuses it.
 */
export class InProcessBus implements EventBus {
  private readonly logs = new Map<string, TopicLog>();
  private readonly groups = new Map<string, ConsumerGroup>();
  private readonly settings: InProcessBusSettings;
  /** Deliveries run one at a time, so a group never handles two batches of a partition at once. */
  private delivering: Promise<void> = Promise.resolve();

  constructor(
    private readonly logger: Logger,
    settings: Partial<InProcessBusSettings> = {},
  ) {
    this.settings = { ...DEFAULTS, ...settings };
    for (const topic of this.settings.topics) this.logOf(topic);
  }

  connect(): Promise<void> {
    return Promise.resolve();
  }

  disconnect(): Promise<void> {
    return Promise.resolve();
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
    for (const { log, record } of accepted) {
      log.append(record);
      eventsPublished.inc({ topic: record.topic });
    }
    await this.deliverAll();
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
      stop: () => {
        member.running = false;
        return Promise.resolve();
      },
      isHealthy: () => member.running,
      lag: () => group.lag(),
    };
  }

  /** Every group reads what it has not handled yet; the first failure is thrown once all have had their turn. */
  private deliverAll(): Promise<void> {
    const run = this.delivering.then(async () => {
      let failure: { error: unknown } | undefined;
      for (const group of this.groups.values()) {
        const handled = (count: number) => eventsConsumed.inc({ group: group.id, topic: group.topicName }, count);
        await group.deliver(handled).catch((error: unknown) => (failure ??= { error }));
      }
      for (const log of this.logs.values()) log.trim(this.unreadOf(log));
      if (failure) throw failure.error;
    });
    this.delivering = run.catch(() => undefined);
    return run;
  }

  /** Per partition, the lowest position of the log's groups: what retention must keep for them. */
  private unreadOf(log: TopicLog): (number | undefined)[] {
    const groups = [...this.groups.values()].filter((group) => group.log === log);
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
