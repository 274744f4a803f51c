import type { RequestHandler } from 'express';
import { RateLimitedError } from '@timetable/http';
import { counter } from '@timetable/observability';
import type { RouteRules } from '../authentication/key-routes.js';
import { setRateLimitHeaders, type PublicReadLimit } from './public-read-limit.js';

const rateLimited = counter({
  name: 'gateway_rate_limited_total',
  help: 'Requests answered 429 because a rate tier was exhausted',
});

/**
 * Every tier applies to every public read (GET/HEAD outside /developers and /webhooks), per client: an
 * IPv4 address or an IPv6 /64 (`req.ip`, which honours the app's 'trust proxy' setting).
 */
export function rateLimitPublicReads(limit: PublicReadLimit, rules: RouteRules): RequestHandler {
  return async (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || rules.isDeveloperArea(req.path)) return next();
    const decision = await limit.check(req, req.ip);
    if (decision === 'unlimited') return next();
    setRateLimitHeaders(res, decision);
    if (!decision.allowed) {
      rateLimited.inc();
      throw new RateLimitedError(decision.retryAfterSeconds);
    }
    next();
  };
}
