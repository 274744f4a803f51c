import type { Router } from 'express';
import { createRedisConnection, HotResponseStore, MemoryRateLimiter, RedisCache, RedisRateLimiter, type RateLimiter, type ResponseStore } from '@timetable/cache';
import { allApiRoutes, type KeyVerifier } from '@timetable/contracts';
import { DeveloperIdentity, type ReadinessCheck } from '@timetable/http';
import type { PlatformServices } from '@timetable/service-kit';
import type { GatewayConfig } from './config.js';
import { HttpKeyVerifier } from './features/authentication/http-key-verifier.js';
import { createProxyRoutes } from './features/routing/proxy-routes.js';

/** What the gateway fronts and counts with, which each host provides its own way. */
export interface GatewayOverrides {
  /** Handlers for everything under /v1/timetable: proxies to the services' ports, or their routers in-process. */
  upstreams: Router[];
  readiness: ReadinessCheck[];
  /** developer-auth's key check; undefined makes key routes answer 503. */
  keyVerifier: KeyVerifier | undefined;
  identity: DeveloperIdentity;
  rateLimiter: RateLimiter;
  /** The catalog's rendered responses; absent, every request takes the Express path to the services. */
  responses?: ResponseStore | undefined;
}

/**
 * The gateway as its own process in front of the services' HTTP ports, with the rate budget in Redis (shared
 * by every replica); the host releases the Redis connection after the gateway stopped.
 */
export function gatewayProcessOverrides(config: GatewayConfig, { logger, onClose }: PlatformServices): GatewayOverrides {
  // Fail-fast, the connection's default: with Redis down a limit check fails at once and the limiter fails open.
  const redis = config.REDIS_URL ? createRedisConnection({ url: config.REDIS_URL, keyPrefix: config.REDIS_KEY_PREFIX, logger }) : undefined;
  if (redis) onClose('redis', () => redis.quit());
  else logger.warn('REDIS_URL unset: the rate budget is per gateway replica');
  const urls = {
    catalogApi: config.CATALOG_API_URL,
    sync: config.SYNC_URL,
    changes: config.CHANGES_URL,
    webhooks: config.WEBHOOKS_URL,
    developerAuth: config.DEVELOPER_AUTH_URL,
  };
  return {
    upstreams: [createProxyRoutes(urls, logger, allApiRoutes)],
    // Ready means this process can answer: not the services behind it, Redis or Kafka, each of which
    // degrades only the routes that need it (503, or an open rate limit), never the whole gateway.
    readiness: [],
    keyVerifier: new HttpKeyVerifier({ developerAuthUrl: config.DEVELOPER_AUTH_URL }),
    identity: new DeveloperIdentity(config.INTERNAL_AUTH_SECRET),
    rateLimiter: redis ? new RedisRateLimiter(redis) : new MemoryRateLimiter(),
    // The catalog's rendered responses, when both share REDIS_URL and REDIS_KEY_PREFIX. Hot entries are kept
    // here too, under the catalog version read at most every 250 ms: a hit then costs no Redis round trip for
    // the entry, and a catalog change is answered by every replica at most 250 ms after it reached Redis.
    ...(redis ? { responses: new HotResponseStore(new RedisCache(redis)) } : {}),
  };
}
