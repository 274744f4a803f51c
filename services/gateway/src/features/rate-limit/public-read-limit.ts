import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RateDecision, RateLimiter, RateTier } from '@timetable/cache';
import { counter, type Logger } from '@timetable/observability';
import { rateLimitClientKey } from './client-key.js';

const limiterFailures = counter({
  name: 'gateway_rate_limiter_failures_total',
  help: 'Rate-limit checks that failed (limiter backend unreachable) and let the request through',
});

export interface PublicReadLimitDeps {
  rateLimiter: RateLimiter;
  rateTiers: RateTier[];
  logger: Logger;
}

/** What a check decided: a decision, or `unlimited` when the limiter backend failed and the request passes. */
export type ReadCheck = RateDecision | 'unlimited';

/**
 * The per-client budget of public reads, used by both of the gateway's read paths. A request is charged
 * once: the cached-read path records its check on the request, and the Express middleware, should the
 * request fall through to it, reuses that check instead of charging again. When the limiter backend fails
 * the request passes unlimited: a Redis outage must not take the read API down with it.
 */
export class PublicReadLimit {
  private readonly checked = new WeakMap<IncomingMessage, ReadCheck>();

  constructor(private readonly deps: PublicReadLimitDeps) {}

  /** Charges the client at `address` (an IPv4 address, or its IPv6 /64) and remembers the outcome on the request. */
  async check(req: IncomingMessage, address: string | undefined): Promise<ReadCheck> {
    const earlier = this.checked.get(req);
    if (earlier) return earlier;
    let outcome: ReadCheck;
    try {
      outcome = await this.deps.rateLimiter.consume(rateLimitClientKey(address), this.deps.rateTiers);
    } catch (error) {
      limiterFailures.inc();
      this.deps.logger.warn({ err: error }, 'rate limiter unavailable, request let through unlimited');
      outcome = 'unlimited';
    }
    this.checked.set(req, outcome);
    return outcome;
  }
}

/** IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers): limit, remaining, seconds to reset. */
export function setRateLimitHeaders(res: ServerResponse, decision: RateDecision): void {
  res.setHeader('RateLimit-Limit', String(decision.limit));
  res.setHeader('RateLimit-Remaining', String(decision.remaining));
  res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
}
