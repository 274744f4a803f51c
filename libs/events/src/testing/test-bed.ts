import { metricsRegistry, type Logger } from '@timetable/observability';
import type { EventBus, OutgoingEvent } from '../event-bus.js';

export type BusMode = 'kafka' | 'embedded';

export type TestBedSettings =
  | { mode: 'kafka'; brokers: string[]; schemaRegistryUrl: string; logger: Logger }
  /** The database where the bed makes its outbox store (a schema of its own): the relay reads it, records are put aside in it. */
  | { mode: 'embedded'; connectionString: string; logger: Logger };

/** A record as it was put aside: in `<topic>.dlq` (Kafka) or the outbox store's dead_letters table (embedded). */
export interface PutAsideView {
  group: string;
  key: string;
  value: unknown;
  headers: Record<string, string>;
  error: string;
  attempts: number;
}

/**
 * A bus in one of the two modes, fed as sync feeds it there: through the outbox and its relay on the
 * in-process bus, or to Kafka (fresh, prefixed topics per bed). Consumers under test subscribe to `bus`.
 */
export interface ConsumerTestBed {
  mode: BusMode;
  bus: EventBus;
  publish(events: OutgoingEvent[]): Promise<void>;
  /** Outbox rows the relay has not published yet (always 0 in Kafka mode). */
  backlog(): Promise<number>;
  /** What was put aside of a (logical) topic so far. */
  putAside(topic: string): Promise<PutAsideView[]>;
  /**
   * Kafka: commits the current end of the topic for a group that is new, so a consumer reading only what comes
   * after it starts (`fromBeginning: false`) misses nothing published while it joins. In-process groups join
   * as they start.
   */
  startGroupAtEnd(group: string, topic: string): Promise<void>;
  /** events_dead_lettered_total{reason="unapplicable"} of a group and (logical) topic. */
  countedPutAside(group: string, topic: string): Promise<number>;
  /** events_consumer_retries_total of a group and (logical) topic: batches retried after an outage. */
  countedRetries(group: string, topic: string): Promise<number>;
  close(): Promise<void>;
}

/** The value of a counter for the given labels (0 until it was first incremented). */
export async function counterValue(name: string, labels: Record<string, string>): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric(name)?.get();
  const sample = metric?.values.find((value) => Object.entries(labels).every(([label, wanted]) => value.labels[label] === wanted));
  return sample?.value ?? 0;
}
