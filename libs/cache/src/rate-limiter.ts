export interface RateTier {
  limit: number;
  windowSeconds: number;
}

export interface RateDecision {
  allowed: boolean;
  /** The tier closest to its limit (or the one exceeded), for the RateLimit-* headers. */
  limit: number;
  remaining: number;
  resetSeconds: number;
  retryAfterSeconds: number;
}

/** Fixed-window counters per client and tier; every tier must allow a request. */
export interface RateLimiter {
  /**
   * Charges one request. A limiter that can decide in this process answers at once, so the cached-read path
   * awaits nothing; one that must ask its backend answers with a promise.
   */
  consume(clientKey: string, tiers: RateTier[]): RateDecision | Promise<RateDecision>;
  close(): Promise<void>;
}

/** Parses `RATE_LIMITS` entries such as `10/1s,60/1m,1000/1h`. */
export function parseRateTiers(spec: string): RateTier[] {
  const units: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
  return spec.split(',').map((part) => {
    const match = /^\s*(\d+)\s*\/\s*(\d*)\s*([smhd])\s*$/.exec(part);
    if (!match) throw new Error(`invalid rate tier "${part}", expected e.g. 60/1m`);
    const [, limit, amount, unit] = match;
    const windowSeconds = Number(amount || '1') * (units[unit as string] ?? 1);
    if (Number(limit) < 1 || windowSeconds < 1) throw new Error(`invalid rate tier "${part}"`);
    return { limit: Number(limit), windowSeconds };
  });
}

/** Combines per-tier counts into one decision: the exceeded tier that resets last, else the one with least room. */
export function decide(tiers: RateTier[], counts: number[], ttlsSeconds: number[]): RateDecision {
  let decision: RateDecision | undefined;
  for (let index = 0; index < tiers.length; index += 1) {
    const tier = tiers[index]!;
    const count = counts[index] ?? 0;
    const reset = Math.max(1, Math.ceil(ttlsSeconds[index] ?? tier.windowSeconds));
    const exceeded = count > tier.limit;
    const candidate: RateDecision = {
      allowed: !exceeded,
      limit: tier.limit,
      remaining: Math.max(0, tier.limit - count),
      resetSeconds: reset,
      retryAfterSeconds: exceeded ? reset : 0,
    };
    if (!decision || (decision.allowed ? !candidate.allowed || candidate.remaining < decision.remaining : !candidate.allowed && candidate.retryAfterSeconds > decision.retryAfterSeconds)) {
      decision = candidate;
    }
  }
  return decision ?? { allowed: true, limit: 0, remaining: 0, resetSeconds: 0, retryAfterSeconds: 0 };
}
