import type { Redis } from 'ioredis';
import { RateLeases, type LeaseGrant } from './rate-leases.js';
import type { RateDecision, RateLimiter, RateTier } from './rate-limiter.js';

// Takes up to ARGV[1] tokens from every tier's counter at once: as many as the fullest tier still has room for
// (ARGV[1 + i] is tier i's limit, ARGV[1 + n + i] its window in ms), none when a tier is full. A counter gets its
// window as expiry when it is created. Returns the grant, then each tier's count and milliseconds to reset.
const LEASE_SCRIPT = `
local n = #KEYS
local grant = tonumber(ARGV[1])
local counts = {}
for i, key in ipairs(KEYS) do
  counts[i] = tonumber(redis.call('GET', key) or '0')
  local room = tonumber(ARGV[1 + i]) - counts[i]
  if room < grant then grant = room end
end
if grant < 0 then grant = 0 end
local result = { grant }
for i, key in ipairs(KEYS) do
  local window = tonumber(ARGV[1 + n + i])
  if grant > 0 then counts[i] = redis.call('INCRBY', key, grant) end
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then
    if counts[i] > 0 then redis.call('PEXPIRE', key, window) end
    ttl = window
  end
  result[#result + 1] = counts[i]
  result[#result + 1] = ttl
end
return result
`;

/** The command name the script is defined under on the connection (ioredis `defineCommand`). */
const COMMAND = 'timetableRateLease';

type LeaseCommand = (numberOfKeys: number, ...keysAndArgs: string[]) => Promise<number[]>;

/**
 * Distributed mode's limiter: counters in Redis, so all gateway replicas share one budget per client. Tokens are
 * taken from the counters in leases (`RateLeases`): a client's request is decided in this process while its
 * lease has tokens, and a renewal is one round trip (every tier in one Lua script, sent by its SHA1). A client
 * that sends few requests gets one-token leases, so its budget is counted exactly as one shared counter would;
 * a busy client's requests are mostly decided without Redis. Concurrent requests of one client wait for one
 * renewal rather than each sending their own.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly command: LeaseCommand;
  private readonly leases: RateLeases;
  private readonly renewals = new Map<string, Promise<RateDecision>>();

  constructor(
    redis: Redis,
    private readonly prefix = 'timetable:rate:',
    leases = new RateLeases(),
  ) {
    // Defining it again on a connection that has it (a second limiter on a shared one) replaces it with the same script.
    redis.defineCommand(COMMAND, { lua: LEASE_SCRIPT });
    const defined = (redis as unknown as Record<string, LeaseCommand>)[COMMAND];
    if (!defined) throw new Error('ioredis did not define the rate-lease command');
    this.command = defined.bind(redis);
    this.leases = leases;
  }

  /** A decision at once while the client's lease answers; a promise when Redis must be asked. */
  consume(clientKey: string, tiers: RateTier[]): RateDecision | Promise<RateDecision> {
    return this.leases.spend(clientKey, tiers) ?? this.renew(clientKey, tiers);
  }

  /** The composition root owns the shared connection and closes it. */
  close(): Promise<void> {
    this.leases.clear();
    return Promise.resolve();
  }

  /** Renews the client's lease, or waits for the renewal already under way and then spends from it. */
  private async renew(clientKey: string, tiers: RateTier[]): Promise<RateDecision> {
    const underWay = this.renewals.get(clientKey);
    if (underWay) {
      // A failed renewal fails its waiters too (each lets its request through): no burst of retries at a Redis that is down.
      await underWay;
      return this.consume(clientKey, tiers);
    }
    const renewal = this.lease(clientKey, tiers).finally(() => this.renewals.delete(clientKey));
    this.renewals.set(clientKey, renewal);
    return renewal;
  }

  private async lease(clientKey: string, tiers: RateTier[]): Promise<RateDecision> {
    const wanted = this.leases.sizeOfNext(clientKey, tiers);
    const keys = tiers.map((tier) => `${this.prefix}${clientKey}:${tier.windowSeconds}`);
    const limits = tiers.map((tier) => String(tier.limit));
    const windowsMs = tiers.map((tier) => String(tier.windowSeconds * 1000));
    const raw = await this.command(keys.length, ...keys, String(wanted), ...limits, ...windowsMs);
    return this.leases.record(clientKey, tiers, grantFrom(raw, tiers.length));
  }
}

function grantFrom(raw: number[], tierCount: number): LeaseGrant {
  const counts: number[] = [];
  const ttlsMs: number[] = [];
  for (let index = 0; index < tierCount; index += 1) {
    counts.push(Number(raw[1 + index * 2]));
    ttlsMs.push(Number(raw[2 + index * 2]));
  }
  return { granted: Number(raw[0]), counts, ttlsMs };
}
