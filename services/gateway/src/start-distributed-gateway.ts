import { createRedisConnection, HotResponseStore, MemoryRateLimiter, RedisCache, RedisRateLimiter, type RateLimiter } from '@timetable/cache';
import { ALL_TOPICS, allApiRoutes } from '@timetable/contracts';
import { InProcessBus, KafkaBus, type EventBus } from '@timetable/events';
import { DeveloperIdentity, listen } from '@timetable/http';
import type { Logger } from '@timetable/observability';
import type { GatewayConfig } from './config.js';
import { createGatewayApp } from './create-gateway-app.js';
import { HttpKeyVerifier } from './features/authentication/http-key-verifier.js';
import { createProxyRoutes, type UpstreamUrls } from './features/routing/proxy-routes.js';

export interface RunningGateway {
  url: string;
  stop(): Promise<void>;
}

/**
 * Distributed mode: the gateway as its own process in front of the services' HTTP ports, with the
 * rate budget in Redis (shared by every replica) and usage events on Kafka.
 */
export async function startDistributedGateway(config: GatewayConfig, logger: Logger): Promise<RunningGateway> {
  const urls: UpstreamUrls = {
    catalogApi: config.CATALOG_API_URL,
    sync: config.SYNC_URL,
    changes: config.CHANGES_URL,
    webhooks: config.WEBHOOKS_URL,
    developerAuth: config.DEVELOPER_AUTH_URL,
  };
  // Fail-fast, the connection's default: with Redis down a limit check fails at once and the limiter fails open.
  const redis = config.REDIS_URL ? createRedisConnection({ url: config.REDIS_URL, keyPrefix: config.REDIS_KEY_PREFIX, logger }) : undefined;
  if (!redis) logger.warn('REDIS_URL unset: the rate budget is per gateway replica');
  const rateLimiter: RateLimiter = redis ? new RedisRateLimiter(redis) : new MemoryRateLimiter();
  const bus: EventBus = config.KAFKA_BROKERS
    ? new KafkaBus({
        brokers: config.KAFKA_BROKERS,
        clientId: 'gateway',
        schemaRegistryUrl: config.SCHEMA_REGISTRY_URL,
        topicPrefix: config.KAFKA_TOPIC_PREFIX,
        topics: ALL_TOPICS,
        logger,
      })
    : new InProcessBus(logger);
  if (!config.KAFKA_BROKERS) logger.warn('KAFKA_BROKERS unset: usage events stay in this process');
  await bus.connect();

  const app = createGatewayApp({
    logger,
    apiRoutes: allApiRoutes,
    upstreams: [createProxyRoutes(urls, logger, allApiRoutes)],
    // Ready means this process can answer: not the services behind it, Redis or Kafka, each of which
    // degrades only the routes that need it (503, or an open rate limit), never the whole gateway.
    readiness: [],
    keyVerifier: new HttpKeyVerifier({ developerAuthUrl: config.DEVELOPER_AUTH_URL }),
    identity: new DeveloperIdentity(config.INTERNAL_AUTH_SECRET),
    rateLimiter,
    rateTiers: config.RATE_LIMITS,
    registerTiers: config.REGISTER_LIMITS,
    // The catalog's rendered responses, when both share REDIS_URL and REDIS_KEY_PREFIX; without Redis every
    // request takes the Express path to the services. Hot entries are kept here too, under the catalog version
    // read at most every 250 ms: a hit then costs no Redis round trip for the entry, and a catalog change is
    // answered by every replica at most 250 ms after it reached Redis.
    ...(redis ? { responses: new HotResponseStore(new RedisCache(redis)) } : {}),
    timeZone: config.TIME_ZONE,
    bus,
    publicBaseUrl: config.publicBaseUrl,
    legacyHosts: config.LEGACY_HOSTS,
    trustProxy: config.TRUST_PROXY,
  });
  const server = await listen(app, config.PORT);
  logger.info({ url: server.url, publicBaseUrl: config.publicBaseUrl }, 'gateway ready');
  return {
    url: server.url,
    async stop() {
      await server.close();
      await bus.disconnect();
      await redis?.quit();
    },
  };
}
