import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '@timetable/observability';

/**
 * For request paths: a short command timeout and no offline queue, so with Redis down a lookup fails fast
 * (a cache miss, an open rate limit) instead of holding the request while ioredis reconnects. Commands issued
 * in one turn of the event loop go out in one write (auto-pipelining): under load the gateway's limit checks
 * of a turn's requests otherwise cost a socket write each, as much CPU as writing the responses themselves.
 */
const FAIL_FAST: RedisOptions = { commandTimeout: 250, enableOfflineQueue: false, maxRetriesPerRequest: 1, enableAutoPipelining: true };

export interface RedisConnectionSettings {
  /** REDIS_URL. */
  url: string;
  /**
   * REDIS_KEY_PREFIX, the one prefix rule of every process: the connection puts it in front of every key it
   * touches (script keys included), so stacks sharing one Redis never see each other's keys. The adapters add
   * their own namespace below it, so a key reads `<REDIS_KEY_PREFIX>timetable:cache:<key>` or
   * `<REDIS_KEY_PREFIX>timetable:rate:<client>:<window>`. Default: no prefix.
   */
  keyPrefix?: string;
  /** Connection errors are logged as warnings; without a listener ioredis would report them as unhandled. */
  logger: Logger;
  /** Default true (the options above). False for work that would rather wait for Redis than fail. */
  failFast?: boolean;
}

/** The Redis connection of the catalog's cache and the gateway's rate limiter; the caller quits it on shutdown. */
export function createRedisConnection(settings: RedisConnectionSettings): Redis {
  const redis = new Redis(settings.url, { keyPrefix: settings.keyPrefix ?? '', ...(settings.failFast === false ? {} : FAIL_FAST) });
  redis.on('error', (error: unknown) => settings.logger.warn({ err: error }, 'redis connection error'));
  return redis;
}
