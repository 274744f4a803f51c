import { Router } from 'express';
import type { RateLimiter, RateTier } from '@timetable/cache';
import { developersApi, expressPath } from '@timetable/contracts';
import { RateLimitedError } from '@timetable/http';
import { counter, type Logger } from '@timetable/observability';
import { rateLimitClientKey } from './client-key.js';
import { failedOpen } from './limiter-failures.js';
import { setRateLimitHeaders } from './public-read-limit.js';

const registerLimited = counter({
  name: 'gateway_register_limited_total',
  help: 'Developer sign-ups answered 429 because the client address spent its REGISTER_LIMITS budget',
});

export interface RegisterLimitDeps {
  rateLimiter: RateLimiter;
  /** REGISTER_LIMITS */
  tiers: RateTier[];
  logger: Logger;
}

/**
 * Anonymous sign-ups per client address (an IPv4 address or an IPv6 /64, as for reads): without a budget an
 * account is one request away, and the per-developer webhook cap means nothing. Every attempt counts, a
 * refused or conflicting one too, so the route cannot be used to probe for registered addresses either.
 * The budget lives in the read limiter's store under its own keys: in Redis it is shared by every gateway
 * replica. A failing store lets the sign-up through, as it does reads.
 */
export function limitRegistrations(deps: RegisterLimitDeps): Router {
  const router = Router();
  router.post(expressPath(developersApi.register.path), async (req, res, next) => {
    const decision = await Promise.resolve()
      .then(() => deps.rateLimiter.consume(`register:${rateLimitClientKey(req.ip)}`, deps.tiers))
      .catch((error: unknown) => failedOpen(deps.logger, error));
    if (decision === 'unlimited') return next();
    setRateLimitHeaders(res, decision);
    if (!decision.allowed) {
      registerLimited.inc();
      throw new RateLimitedError(decision.retryAfterSeconds);
    }
    next();
  });
  return router;
}
