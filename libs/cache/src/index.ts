export type { Cache } from './cache.js';
export { MemoryCache } from './memory-cache.js';
export { RedisCache } from './redis-cache.js';
export { parseRateTiers, decide, type RateTier, type RateDecision, type RateLimiter } from './rate-limiter.js';
export { MemoryRateLimiter, consumeNowOrLater } from './memory-rate-limiter.js';
export { RedisRateLimiter } from './redis-rate-limiter.js';
export { createRedisConnection, type RedisConnectionSettings } from './redis-connection.js';
export { ResponseStore, RESPONSE_NAMESPACE, requestUrlKey, etagMatches, type StoredResponse } from './response-store.js';
