/**
 * A bus for benchmarking a producer alone: each published value is checked against its topic's schema (as the
 * Kafka producer checks it) and then forgotten, as it leaves the process for the broker. The embedded mode's
 * InProcessBus instead keeps the latest record of every key of a compacted topic in memory, which is the
 * broker's memory, not the producer's.
 */
import { ALL_TOPICS, type TopicDefinition } from '@timetable/contracts';
import type { EventBus, EventConsumer, OutgoingEvent } from '@timetable/events';

export class PublishOnlyBus implements EventBus {
  private readonly topics = new Map<string, TopicDefinition>(ALL_TOPICS.map((topic) => [topic.name, topic]));
  published = 0;

  connect(): Promise<void> {
    return Promise.resolve();
  }

  disconnect(): Promise<void> {
    return Promise.resolve();
  }

  publish(events: OutgoingEvent[]): Promise<void> {
    for (const event of events) {
      const topic = this.topics.get(event.topic);
      if (!topic) return Promise.reject(new Error(`no topic ${event.topic}`));
      if (event.value !== null && !topic.schema.safeParse(event.value).success) {
        return Promise.reject(new Error(`a value the ${event.topic} schema refuses`));
      }
    }
    this.published += events.length;
    return Promise.resolve();
  }

  subscribe(): EventConsumer {
    throw new Error('the publish-only bus has no consumers');
  }

  isHealthy(): boolean {
    return true;
  }
}
