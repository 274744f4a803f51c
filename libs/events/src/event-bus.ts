import type { TopicDefinition } from '@timetable/contracts';
import type { Lifecycle } from '@timetable/observability';
import type { z } from 'zod';

/** The value type of a topic's events: what its schema parses to. */
export type EventOf<D extends TopicDefinition> = z.output<D['schema']>;

export interface OutgoingEvent {
  topic: string;
  key: string;
  /** null is a tombstone (delete) on compacted topics. */
  value: unknown;
  headers?: Record<string, string>;
}

export interface IncomingEvent<T = unknown> {
  topic: string;
  key: string;
  value: T | null;
  headers: Record<string, string>;
  partition: number;
  offset: string;
}

export interface SubscriptionOptions<T = unknown> {
  /** Consumers of one group share the work; each group sees every event. */
  groupId: string;
  topic: TopicDefinition;
  /** Read the topic from its start when the group has no committed position (projections rebuild this way). */
  fromBeginning: boolean;
  /**
   * Handles events in order; the position is committed only after it resolves, so a crash replays them
   * and the handler must be idempotent. Throwing stops the batch and it is retried. A property, not a
   * method, so a handler for another event type does not type-check (methods are checked bivariantly).
   */
  handleBatch: (events: IncomingEvent<T>[]) => Promise<void>;
}

export interface EventConsumer extends Lifecycle {
  /** Messages between the committed position and the end of the topic, summed over partitions. */
  lag(): number;
}

/** The port services publish and subscribe through; embedded mode and Kafka differ only in this adapter. */
export interface EventBus {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  publish(events: OutgoingEvent[]): Promise<void>;
  /** The event type follows from the topic definition, so a handler cannot declare another one. */
  subscribe<D extends TopicDefinition>(options: SubscriptionOptions<EventOf<D>> & { topic: D }): EventConsumer;
  isHealthy(): boolean;
}
