import type { EventConsumer } from './event-bus.js';

/** CONSUMER_MAX_LAG's default: a few seconds of a busy sync, far below a replayed topic. */
export const DEFAULT_MAX_CONSUMER_LAG = 1000;

/**
 * A /ready check for a consumer: running and at most `maxLag` messages behind the end of its topic, so a
 * replica that is still replaying (after a restart or on a fresh store) gets no traffic until it caught up.
 * Structurally a ReadinessCheck of @timetable/http.
 */
export function consumerReadiness(
  name: string,
  consumer: EventConsumer,
  maxLag: number = DEFAULT_MAX_CONSUMER_LAG,
): { name: string; check(): boolean } {
  return { name, check: () => consumer.isHealthy() && consumer.lag() <= maxLag };
}
