import { decide, type RateDecision, type RateLimiter, type RateTier } from './rate-limiter.js';

interface Window {
  windowSeconds: number;
  count: number;
  resetsAt: number;
}

/** Room for about 30,000 clients with three tiers each: a few megabytes. */
const DEFAULT_MAX_WINDOWS = 100_000;

/**
 * Embedded mode's limiter; one process, so a Map of windows is exact. Each client has one entry holding its
 * window of every tier: a request costs one lookup by the client's key, not one per tier under a key built for
 * it. The map is bounded: clients whose windows have all expired are swept once a minute, and when it holds
 * too many windows anyway (many distinct clients within one window) the clients whose windows were renewed
 * longest ago make room. Forgetting a window only ever gives a client a fresh budget; it never refuses anyone,
 * so memory stays bounded at the price of leniency under a flood.
 */
export class MemoryRateLimiter implements RateLimiter {
  /** In the order of their last renewal: the front was renewed longest ago. */
  private readonly clients = new Map<string, Window[]>();
  private windowCount = 0;
  private sweptAt = Date.now();

  constructor(private readonly maxWindows = DEFAULT_MAX_WINDOWS) {}

  /** Windows currently held: at most `maxWindows`, or the charged client's own when it has more tiers than that. */
  get size(): number {
    return this.windowCount;
  }

  /** Without a promise: the windows are in this process. */
  consume(clientKey: string, tiers: RateTier[]): RateDecision {
    const now = Date.now();
    this.sweep(now);
    let windows = this.clients.get(clientKey);
    let renewed = windows === undefined;
    windows ??= [];
    const counts: number[] = [];
    const ttls: number[] = [];
    for (const tier of tiers) {
      let window = windowOf(windows, tier.windowSeconds);
      if (!window) {
        window = { windowSeconds: tier.windowSeconds, count: 0, resetsAt: now + tier.windowSeconds * 1000 };
        windows.push(window);
        this.windowCount += 1;
        renewed = true;
      } else if (window.resetsAt <= now) {
        window.count = 0;
        window.resetsAt = now + tier.windowSeconds * 1000;
        renewed = true;
      }
      window.count += 1;
      counts.push(window.count);
      ttls.push((window.resetsAt - now) / 1000);
    }
    if (renewed) {
      // Deleted first so the client moves to the end of the insertion order (the most recently renewed).
      this.clients.delete(clientKey);
      this.clients.set(clientKey, windows);
      this.makeRoom(clientKey);
    }
    return decide(tiers, counts, ttls);
  }

  close(): Promise<void> {
    this.clients.clear();
    this.windowCount = 0;
    return Promise.resolve();
  }

  /**
   * Drops the clients renewed longest ago (the front of the insertion order) until the windows fit again: O(1)
   * per new window, so a flood of distinct clients costs no more per request than normal traffic. The client
   * being charged is never dropped: with a bound below its number of tiers it would otherwise forget its own
   * windows on every request.
   */
  private makeRoom(current: string): void {
    for (const [key, windows] of this.clients) {
      if (this.windowCount <= this.maxWindows || key === current) break;
      this.forget(key, windows);
    }
  }

  private sweep(now: number): void {
    if (now - this.sweptAt < 60_000) return;
    this.sweptAt = now;
    for (const [key, windows] of this.clients) if (windows.every((window) => window.resetsAt <= now)) this.forget(key, windows);
  }

  private forget(key: string, windows: Window[]): void {
    this.clients.delete(key);
    this.windowCount -= windows.length;
  }
}

/** The client's window of that length; a client has one per tier, so a scan beats a lookup. */
function windowOf(windows: Window[], windowSeconds: number): Window | undefined {
  for (const window of windows) if (window.windowSeconds === windowSeconds) return window;
  return undefined;
}

