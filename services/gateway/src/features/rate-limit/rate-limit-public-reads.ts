import type { RequestHandler, Response } from 'express';
import type { RateDecision, RateLimiter, RateTier } from '@timetable/cache';
import { RateLimitedError } from '@timetable/http';
import { counter, type Logger } from '@timetable/observability';
import { isDeveloperArea } from '../authentication/key-routes.js';
import { rateLimitClientKey } from './client-key.js';

const limiterFailures = counter({
  name: 'gateway_rate_limiter_failures_total',
  help: 'Rate-limit checks that failed (limiter backend unreachable) and let the request through',
});

const rateLimited = counter({
  name: 'gateway_rate_limited_total',
  help: 'Requests answered 429 because a rate tier was exhausted',
});

export interface RateLimitDeps {
  rateLimiter: RateLimiter;
  rateTiers: RateTier[];
  logger: Logger;
}

/**
 * Every tier applies to every public read (GET/HEAD outside /developers and /webhooks), per client: an
 * IPv4 address or an IPv6 /64 (`req.ip`, which honours the app's 'trust proxy' setting). When the limiter backend fails the request passes
 * unlimited: a Redis outage must not take the read API down with it.
 */
export function rateLimitPublicReads(deps: RateLimitDeps): RequestHandler {
  return async (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || isDeveloperArea(req.path)) return next();
    let decision: RateDecision;
    try {
      decision = await deps.rateLimiter.consume(rateLimitClientKey(req.ip), deps.rateTiers);
    } catch (error) {
      limiterFailures.inc();
      deps.logger.warn({ err: error }, 'rate limiter unavailable, request let through unlimited');
      return next();
    }
    setRateLimitHeaders(res, decision);
    if (!decision.allowed) {
      rateLimited.inc();
      throw new RateLimitedError(decision.retryAfterSeconds);
    }
    next();
  };
}

/** IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers): limit, remaining, seconds to reset. */
function setRateLimitHeaders(res: Response, decision: RateDecision): void {
  res.setHeader('RateLimit-Limit', String(decision.limit));
  res.setHeader('RateLimit-Remaining', String(decision.remaining));
  res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
}
