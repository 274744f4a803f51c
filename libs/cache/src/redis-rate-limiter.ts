import type { Redis } from 'ioredis';
import { decide, type RateDecision, type RateLimiter, type RateTier } from './rate-limiter.js';

// Counts a batch of requests: ARGV[1] is how many; then, for each request, its number of tiers followed by each
// tier's window in ms, and its tiers' keys in KEYS in the same order. Every tier's counter is incremented and
// gets its window as expiry when it is created. Returns, per request and tier, the count and the ms to reset.
const CONSUME_SCRIPT = `
local result = {}
local key = 1
local arg = 2
for request = 1, tonumber(ARGV[1]) do
  local tiers = tonumber(ARGV[arg])
  arg = arg + 1
  for tier = 1, tiers do
    local window = ARGV[arg]
    arg = arg + 1
    local count = redis.call('INCR', KEYS[key])
    if count == 1 then redis.call('PEXPIRE', KEYS[key], window) end
    local ttl = redis.call('PTTL', KEYS[key])
    if ttl < 0 then redis.call('PEXPIRE', KEYS[key], window); ttl = tonumber(window) end
    key = key + 1
    result[#result + 1] = count
    result[#result + 1] = ttl
  end
end
return result
`;

/** The command name the script is defined under on the connection (ioredis `defineCommand`). */
const COMMAND = 'timetableRateConsumeBatch';
/** Requests counted by one script call at most; a larger turn sends several. */
const MAX_BATCH = 256;

type ConsumeCommand = (numberOfKeys: number, ...keysAndArgs: string[]) => Promise<number[]>;

interface Waiting {
  clientKey: string;
  tiers: RateTier[];
  resolve(decision: RateDecision): void;
  reject(error: unknown): void;
}

/**
 * Distributed mode's limiter: counters in Redis, so all gateway replicas share one budget per client, counted
 * exactly as one process would count it. The requests that arrive in one turn of the event loop are counted
 * together, by one Lua script sent by its SHA1 (EVALSHA) once the turn's reads are done: one round trip per turn
 * for all clients, rather than one per request. A request waits for nothing more than the rest of its turn.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly command: ConsumeCommand;
  private waiting: Waiting[] = [];

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

  consume(clientKey: string, tiers: RateTier[]): Promise<RateDecision> {
    return new Promise((resolve, reject) => {
      // The check phase comes after the poll phase has read every request of this turn.
      if (this.waiting.length === 0) setImmediate(() => this.flush());
      this.waiting.push({ clientKey, tiers, resolve, reject });
    });
  }

  /** The composition root owns the shared connection and closes it. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  private flush(): void {
    const turn = this.waiting;
    this.waiting = [];
    for (let start = 0; start < turn.length; start += MAX_BATCH) void this.count(turn.slice(start, start + MAX_BATCH));
  }

  private async count(batch: Waiting[]): Promise<void> {
    const keys: string[] = [];
    const args: string[] = [String(batch.length)];
    for (const { clientKey, tiers } of batch) {
      args.push(String(tiers.length));
      for (const tier of tiers) {
        keys.push(`${this.prefix}${clientKey}:${tier.windowSeconds}`);
        args.push(String(tier.windowSeconds * 1000));
      }
    }
    let raw: number[];
    try {
      raw = await this.command(keys.length, ...keys, ...args);
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
      return;
    }
    let offset = 0;
    for (const { tiers, resolve } of batch) {
      const counts = tiers.map((_, index) => Number(raw[offset + index * 2]));
      const ttls = tiers.map((_, index) => Number(raw[offset + index * 2 + 1]) / 1000);
      offset += tiers.length * 2;
      resolve(decide(tiers, counts, ttls));
    }
  }
}
