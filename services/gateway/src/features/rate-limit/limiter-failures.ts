import { counter, type Logger } from '@timetable/observability';

const limiterFailures = counter({
  name: 'gateway_rate_limiter_failures_total',
  help: 'Rate-limit checks that failed (limiter backend unreachable) and let the request through',
});

/**
 * A limit check whose backend failed lets the request through: a Redis outage must not take the API down
 * with it. Counted and logged, so the outage is seen.
 */
export function failedOpen(logger: Logger, error: unknown): 'unlimited' {
  limiterFailures.inc();
  logger.warn({ err: error }, 'rate limiter unavailable, request let through unlimited');
  return 'unlimited';
}
