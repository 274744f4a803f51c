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

/** The command name the script is defined under on the connection (ioredis `defineCommand`). */
const COMMAND = 'timetableRateConsume';

type ConsumeCommand = (numberOfKeys: number, ...keysAndArgs: string[]) => Promise<number[]>;

/**
 * Distributed mode's limiter: counters in Redis, so all gateway replicas share one budget per client. A
 * check is one round trip: every tier is counted by one Lua script, sent by its SHA1 (EVALSHA) once Redis
 * knows it, so a request carries the keys and windows rather than the script's text.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly command: ConsumeCommand;

  constructor(
    redis: Redis,
    private readonly prefix = 'timetable:rate:',
  ) {
    // Defining it again on a connection that has it (a second limiter on a shared one) replaces it with the same script.
    redis.defineCommand(COMMAND, { lua: CONSUME_SCRIPT });
    const defined = (redis as unknown as Record<string, ConsumeCommand>)[COMMAND];
    if (!defined) throw new Error('ioredis did not define the rate-limit command');
    this.command = defined.bind(redis);
  }

  async consume(clientKey: string, tiers: RateTier[]): Promise<RateDecision> {
    const keys = tiers.map((tier) => `${this.prefix}${clientKey}:${tier.windowSeconds}`);
    const windowsMs = tiers.map((tier) => String(tier.windowSeconds * 1000));
    const raw = await this.command(keys.length, ...keys, ...windowsMs);
    const counts = tiers.map((_, index) => Number(raw[index * 2]));
    const ttls = tiers.map((_, index) => Number(raw[index * 2 + 1]) / 1000);
    return decide(tiers, counts, ttls);
  }

  /** The composition root owns the shared connection and closes it. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
