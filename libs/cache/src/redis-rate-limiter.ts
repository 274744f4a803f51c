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
 * exactly as one process would count it. Requests are counted in batches, by one Lua script sent by its SHA1
 * (EVALSHA): the requests of one turn of the event loop go together once the turn's reads are done, and while a
 * batch is on its way to Redis and back the requests that arrive meanwhile wait to go together as the next. A
 * quiet gateway thus sends each request at the end of its turn, and a busy one sends one command per round trip
 * to Redis, whatever the number of requests or clients, rather than a command per request.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly command: ConsumeCommand;
  private waiting: Waiting[] = [];
  /** A flush is scheduled, or batches are on their way to Redis: either way, new requests wait for it. */
  private busy = false;

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
      this.waiting.push({ clientKey, tiers, resolve, reject });
      if (!this.busy) this.scheduleFlush();
    });
  }

  /** The composition root owns the shared connection and closes it. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  /** In the check phase, which comes after the poll phase has read every request of this turn. */
  private scheduleFlush(): void {
    this.busy = true;
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    const counted: Promise<void>[] = [];
    for (let start = 0; start < batch.length; start += MAX_BATCH) counted.push(this.count(batch.slice(start, start + MAX_BATCH)));
    try {
      await Promise.all(counted);
    } finally {
      // What arrived while these were away goes next, together. (The connection's command timeout bounds the wait.)
      if (this.waiting.length > 0) this.scheduleFlush();
      else this.busy = false;
    }
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
    try {
      const raw = await this.command(keys.length, ...keys, ...args);
      let offset = 0;
      for (const { tiers, resolve } of batch) {
        const counts = tiers.map((_, index) => Number(raw[offset + index * 2]));
        const ttls = tiers.map((_, index) => Number(raw[offset + index * 2 + 1]) / 1000);
        offset += tiers.length * 2;
        resolve(decide(tiers, counts, ttls));
      }
    } catch (error) {
      // Every request of a failed batch fails (its gateway lets it through); one already decided stays decided.
      for (const waiting of batch) waiting.reject(error);
    }
  }
}
