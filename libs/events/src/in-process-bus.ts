import type { Logger } from '@timetable/observability';
import type { EventBus, EventConsumer, IncomingEvent, OutgoingEvent, SubscriptionOptions } from './event-bus.js';
import { eventsConsumed, eventsPublished, eventsRejected } from './event-metrics.js';
import { validateEventValue } from './validate-event.js';

interface ActiveSubscription {
  options: SubscriptionOptions;
  running: boolean;
}

/**
 * The embedded mode's bus: publish resolves only after every running subscriber handled the events, so
 * the outbox relay deletes a row only once it has really been processed (and retries it otherwise).
 */
export class InProcessBus implements EventBus {
  private readonly subscriptions: ActiveSubscription[] = [];
  private offset = 0;

  constructor(private readonly logger: Logger) {}

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
    for (const subscription of this.subscriptions) {
      if (!subscription.running) continue;
      const { options } = subscription;
      const batch: IncomingEvent[] = [];
      for (const event of events) {
        if (event.topic !== options.topic.name) continue;
        const checked = validateEventValue(options.topic, event.value);
        if (!checked.ok) {
          eventsRejected.inc({ group: options.groupId, topic: event.topic });
          this.logger.warn({ topic: event.topic, key: event.key, reason: checked.reason }, 'skipping invalid event');
          continue;
        }
        batch.push({ ...event, value: checked.value, headers: event.headers ?? {}, partition: 0, offset: String(this.offset++) });
      }
      if (batch.length === 0) continue;
      await options.handleBatch(batch);
      eventsConsumed.inc({ group: options.groupId, topic: options.topic.name }, batch.length);
    }
    for (const event of events) eventsPublished.inc({ topic: event.topic });
  }

  subscribe<T>(options: SubscriptionOptions<T>): EventConsumer {
    const subscription: ActiveSubscription = { options: options as SubscriptionOptions, running: false };
    this.subscriptions.push(subscription);
    return {
      start: () => {
        subscription.running = true;
        return Promise.resolve();
      },
      stop: () => {
        subscription.running = false;
        return Promise.resolve();
      },
      isHealthy: () => subscription.running,
      lag: () => 0,
    };
  }
}
