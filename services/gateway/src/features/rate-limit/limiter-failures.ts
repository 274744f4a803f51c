import { counter, type Logger } from '@timetable/observability';

const limiterFailures = counter({
  name: 'gateway_rate_limiter_failures_total',
  help: 'Rate-limit checks that failed (limiter backend unreachable) and let the request through',
});

/** One warning per this interval at most: during an outage every request fails its check, and the counter has the rate. */
const WARN_INTERVAL_MS = 10_000;
/** Per logger, i.e. per gateway: when it last warned, and the checks that failed since. */
const warnings = new WeakMap<Logger, { lastWarnedAt: number; failedSince: number }>();

/**
 * A limit check whose backend failed lets the request through: a Redis outage must not take the API down
 * with it. Counted, and logged at most every ten seconds with how many checks failed since the last warning,
 * so the outage is seen without a log line per request.
 */
export function failedOpen(logger: Logger, error: unknown): 'unlimited' {
  limiterFailures.inc();
  const state = warnings.get(logger) ?? { lastWarnedAt: -Infinity, failedSince: 0 };
  warnings.set(logger, state);
  state.failedSince += 1;
  const now = performance.now();
  if (now - state.lastWarnedAt >= WARN_INTERVAL_MS) {
    logger.warn({ err: error, failedChecks: state.failedSince }, 'rate limiter unavailable, requests let through unlimited');
    state.lastWarnedAt = now;
    state.failedSince = 0;
  }
  return 'unlimited';
}
