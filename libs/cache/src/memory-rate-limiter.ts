import { decide, type RateDecision, type RateLimiter, type RateTier } from './rate-limiter.js';

interface Window {
  count: number;
  resetsAt: number;
}

/** Embedded mode's limiter; one process, so a Map of windows is exact. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, Window>();
  private sweptAt = Date.now();

  consume(clientKey: string, tiers: RateTier[]): Promise<RateDecision> {
    const now = Date.now();
    this.sweep(now);
    const counts: number[] = [];
    const ttls: number[] = [];
    for (const tier of tiers) {
      const key = `${clientKey}:${tier.windowSeconds}`;
      let window = this.windows.get(key);
      if (!window || window.resetsAt <= now) {
        window = { count: 0, resetsAt: now + tier.windowSeconds * 1000 };
        this.windows.set(key, window);
      }
      window.count += 1;
      counts.push(window.count);
      ttls.push((window.resetsAt - now) / 1000);
    }
    return Promise.resolve(decide(tiers, counts, ttls));
  }

  close(): Promise<void> {
    this.windows.clear();
    return Promise.resolve();
  }

  private sweep(now: number): void {
    if (now - this.sweptAt < 60_000) return;
    this.sweptAt = now;
    for (const [key, window] of this.windows) if (window.resetsAt <= now) this.windows.delete(key);
  }
}
