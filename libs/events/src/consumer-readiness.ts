import type { EventConsumer } from './event-bus.js';

/**
 * A /ready check for a consumer: it runs and has not given up. Lag is deliberately not an input: a replica
 * that is behind still serves correct (if older) data, and taking every replica out during a large sync
 * would turn a delay into an outage; lag is a metric with an alert instead. Structurally a ReadinessCheck
 * of @timetable/http.
 */
export function consumerReadiness(name: string, consumer: EventConsumer): { name: string; check(): boolean } {
  return { name, check: () => consumer.isHealthy() };
}
