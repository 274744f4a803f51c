import { decide, type RateDecision, type RateLimiter, type RateTier } from './rate-limiter.js';

interface Window {
  count: number;
  resetsAt: number;
}

/** Room for about 30,000 clients with three tiers each: a few megabytes. */
const DEFAULT_MAX_WINDOWS = 100_000;

/**
 * Embedded mode's limiter; one process, so a Map of windows is exact. The map is bounded: expired windows
 * are swept once a minute, and when it is full anyway (many distinct clients within one window) the
 * windows that were opened longest ago make room. Forgetting a window only ever gives a client a fresh
 * budget; it never refuses anyone, so memory stays bounded at the price of leniency under a flood.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, Window>();
  private sweptAt = Date.now();

  constructor(private readonly maxWindows = DEFAULT_MAX_WINDOWS) {}

  /** Windows currently held (bounded by `maxWindows`). */
  get size(): number {
    return this.windows.size;
  }

  consume(clientKey: string, tiers: RateTier[]): Promise<RateDecision> {
    return Promise.resolve(this.consumeNow(clientKey, tiers));
  }

  /** `consume` without a promise: the windows are in this process. */
  consumeNow(clientKey: string, tiers: RateTier[]): RateDecision {
    const now = Date.now();
    this.sweep(now);
    const counts: number[] = [];
    const ttls: number[] = [];
    for (const tier of tiers) {
      const key = `${clientKey}:${tier.windowSeconds}`;
      let window = this.windows.get(key);
      if (!window || window.resetsAt <= now) {
        window = { count: 0, resetsAt: now + tier.windowSeconds * 1000 };
        // Deleted first so a renewed window moves to the end of the insertion order (the youngest).
        this.windows.delete(key);
        this.windows.set(key, window);
        this.makeRoom();
      }
      window.count += 1;
      counts.push(window.count);
      ttls.push((window.resetsAt - now) / 1000);
    }
    return decide(tiers, counts, ttls);
  }

  close(): Promise<void> {
    this.windows.clear();
    return Promise.resolve();
  }

  /**
   * Drops the windows opened longest ago (the front of the insertion order) until the map fits again: O(1)
   * per new window, so a flood of distinct clients costs no more per request than normal traffic.
   */
  private makeRoom(): void {
    for (const key of this.windows.keys()) {
      if (this.windows.size <= this.maxWindows) break;
      this.windows.delete(key);
    }
  }

  private sweep(now: number): void {
    if (now - this.sweptAt < 60_000) return;
    this.sweptAt = now;
    for (const [key, window] of this.windows) if (window.resetsAt <= now) this.windows.delete(key);
  }
}
