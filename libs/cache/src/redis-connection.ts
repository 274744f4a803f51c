import { Redis } from 'ioredis';

/**
 * A Redis connection for request paths: a short command timeout and no offline queue, so with Redis down
 * a lookup fails fast (a cache miss, an open rate limit) instead of holding the request while ioredis
 * reconnects. The caller listens for 'error' and quits it on shutdown.
 */
export function createRedisConnection(url: string): Redis {
  return new Redis(url, { commandTimeout: 250, enableOfflineQueue: false, maxRetriesPerRequest: 1 });
}
