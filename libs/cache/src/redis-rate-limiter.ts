import type { Redis } from 'ioredis';
import { decide, type RateDecision, type RateLimiter, type RateTier } from './rate-limiter.js';

// Increments every tier's counter atomically and sets its expiry on first use; returns count and TTL pairs.
const CONSUME_SCRIPT = `
local result = {}
for i, key in ipairs(KEYS) do
  local count = redis.call('INCR', key)
  if count == 1 then redis.call('PEXPIRE', key, ARGV[i]) end
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then redis.call('PEXPIRE', key, ARGV[i]); ttl = tonumber(ARGV[i]) end
  result[#result + 1] = count
  result[#result + 1] = ttl
end
return result
`;

/** Distributed mode's limiter: counters in Redis, so all gateway replicas share one budget per client. */
export class RedisRateLimiter implements RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'timetable:rate:',
  ) {}

  async consume(clientKey: string, tiers: RateTier[]): Promise<RateDecision> {
    const keys = tiers.map((tier) => `${this.prefix}${clientKey}:${tier.windowSeconds}`);
    const windowsMs = tiers.map((tier) => String(tier.windowSeconds * 1000));
    const raw = (await this.redis.eval(CONSUME_SCRIPT, keys.length, ...keys, ...windowsMs)) as number[];
    const counts = tiers.map((_, index) => Number(raw[index * 2]));
    const ttls = tiers.map((_, index) => Number(raw[index * 2 + 1]) / 1000);
    return decide(tiers, counts, ttls);
  }

  /** The composition root owns the shared connection and closes it. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
