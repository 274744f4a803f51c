import type { IncomingMessage, ServerResponse } from 'node:http';
import { type RateDecision, type RateLimiter, type RateTier } from '@timetable/cache';
import type { Logger } from '@timetable/observability';
import { rateLimitClientKey } from './client-key.js';
import { failedOpen } from './limiter-failures.js';

export interface PublicReadLimitDeps {
  rateLimiter: RateLimiter;
  rateTiers: RateTier[];
  logger: Logger;
}

/** What a check decided: a decision, or `unlimited` when the limiter backend failed and the request passes. */
export type ReadCheck = RateDecision | 'unlimited';

/**
 * The per-client budget of public reads, used by both of the gateway's read paths. A request is charged
 * once: when the cached-read path has charged a request it then passes on (its budget is exhausted), it
 * hands the outcome over with `handOver`, and the Express middleware's `check` takes that instead of charging
 * again. When the limiter backend fails the request passes unlimited: a Redis outage must not take the read
 * API down with it.
 */
export class PublicReadLimit {
  private readonly handedOver = new WeakMap<IncomingMessage, ReadCheck>();

  constructor(private readonly deps: PublicReadLimitDeps) {}

  /**
   * Charges the client at `address` (an IPv4 address, or its IPv6 /64). Without a promise where the limiter
   * is in this process (embedded mode), so the cached-read path awaits nothing there. Whatever fails, whether
   * it throws or rejects, lets the request through unlimited.
   */
  consume(address: string | undefined): ReadCheck | Promise<ReadCheck> {
    const { rateLimiter, rateTiers } = this.deps;
    try {
      const decision = rateLimiter.consume(rateLimitClientKey(address), rateTiers);
      return decision instanceof Promise ? decision.catch((error: unknown) => this.failedOpen(error)) : decision;
    } catch (error) {
      return this.failedOpen(error);
    }
  }

  /** Records that `req` was already charged, for the path that answers it. */
  handOver(req: IncomingMessage, outcome: ReadCheck): void {
    this.handedOver.set(req, outcome);
  }

  /** The outcome handed over for `req`, or a fresh charge. */
  check(req: IncomingMessage, address: string | undefined): Promise<ReadCheck> {
    const earlier = this.handedOver.get(req);
    return Promise.resolve(earlier ?? this.consume(address));
  }

  private failedOpen(error: unknown): 'unlimited' {
    return failedOpen(this.deps.logger, error);
  }
}

/**
 * IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers): limit, remaining, seconds to reset, as a
 * flat list of names and values (what `writeHead` takes).
 */
export function rateLimitHeaderList(decision: RateDecision): string[] {
  return ['RateLimit-Limit', String(decision.limit), 'RateLimit-Remaining', String(decision.remaining), 'RateLimit-Reset', String(decision.resetSeconds)];
}

export function setRateLimitHeaders(res: ServerResponse, decision: RateDecision): void {
  const list = rateLimitHeaderList(decision);
  for (let index = 0; index < list.length; index += 2) res.setHeader(list[index]!, list[index + 1]!);
}
