import { describe, expect, it, vi } from 'vitest';
import { MemoryRateLimiter, parseRateTiers } from '@timetable/cache';

describe('RATE_LIMITS tiers', () => {
  it('parses the default 10/1s,60/1m,1000/1h', () => {
    expect(parseRateTiers('10/1s,60/1m,1000/1h')).toEqual([
      { limit: 10, windowSeconds: 1 },
      { limit: 60, windowSeconds: 60 },
      { limit: 1000, windowSeconds: 3600 },
    ]);
  });

  it('rejects a malformed tier', () => {
    expect(() => parseRateTiers('ten/1s')).toThrow(/invalid rate tier/);
  });
});

describe('the in-memory limiter', () => {
  it('allows up to the limit of every tier, then denies with a retry delay', () => {
    const limiter = new MemoryRateLimiter();
    const tiers = parseRateTiers('3/10s,100/1h');
    const decisions = [];
    for (let i = 0; i < 4; i += 1) decisions.push(limiter.consume('1.2.3.4', tiers));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions[2]).toMatchObject({ limit: 3, remaining: 0 });
    expect(decisions[3]?.retryAfterSeconds).toBeGreaterThan(0);
    expect((limiter.consume('5.6.7.8', tiers)).allowed).toBe(true);
  });
});

describe('the in-memory limiter under many distinct clients', () => {
  it('holds no more windows than its bound after 10,000 distinct client addresses', () => {
    const limiter = new MemoryRateLimiter(3_000);
    const tiers = parseRateTiers('10/1s,60/1m,1000/1h');
    for (let client = 0; client < 10_000; client += 1) {
      limiter.consume(`ip:10.${client >> 16}.${(client >> 8) & 0xff}.${client & 0xff}`, tiers);
    }
    expect(limiter.size).toBe(3_000);
  });

  it('makes room by forgetting the oldest windows, so a recent client keeps its count', () => {
    const limiter = new MemoryRateLimiter(6);
    const tiers = parseRateTiers('2/1h');
    for (const client of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) limiter.consume(client, tiers);
    limiter.consume('g', tiers);
    expect((limiter.consume('g', tiers)).allowed).toBe(false);
    expect(limiter.size).toBe(6);
    expect((limiter.consume('a', tiers)).remaining).toBe(1);
  });

  it('keeps an active client\'s long windows while newer clients push out the ones renewed longest ago', () => {
    vi.useFakeTimers({ now: new Date('2026-11-28T12:00:00Z') });
    try {
      const limiter = new MemoryRateLimiter(4);
      const tiers = parseRateTiers('100/1s,3/1h');
      limiter.consume('a', tiers);
      limiter.consume('b', tiers);
      vi.advanceTimersByTime(1_500);
      // a's second window renews: a is now the client renewed last, b the one renewed longest ago.
      limiter.consume('a', tiers);
      limiter.consume('c', tiers);
      expect(limiter.size).toBe(4);
      // a's hour still counts its two requests: the third is allowed, the fourth is not.
      expect((limiter.consume('a', tiers)).allowed).toBe(true);
      expect(limiter.consume('a', tiers)).toMatchObject({ allowed: false, limit: 3 });
      // b was forgotten: a fresh budget.
      expect(limiter.consume('b', tiers)).toMatchObject({ allowed: true, limit: 3, remaining: 2 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('sweeps clients whose windows have all expired', () => {
    vi.useFakeTimers({ now: new Date('2026-11-28T12:00:00Z') });
    try {
      const limiter = new MemoryRateLimiter();
      limiter.consume('short', parseRateTiers('10/1s'));
      limiter.consume('long', parseRateTiers('10/1s,60/1h'));
      expect(limiter.size).toBe(3);
      vi.advanceTimersByTime(61_000);
      limiter.consume('other', parseRateTiers('10/1s'));
      // 'short' went; 'long' stays with both its windows (its hour has not ended), 'other' came.
      expect(limiter.size).toBe(3);
      expect((limiter.consume('long', parseRateTiers('10/1s,60/1h'))).remaining).toBe(9);
    } finally {
      vi.useRealTimers();
    }
  });

  it('never forgets the client it charges, even with a bound below its number of tiers', () => {
    const limiter = new MemoryRateLimiter(1);
    const tiers = parseRateTiers('2/1h,100/1s');
    limiter.consume('a', tiers);
    limiter.consume('a', tiers);
    expect(limiter.consume('a', tiers)).toMatchObject({ allowed: false, limit: 2 });
    expect(limiter.size).toBe(2);
    // Another client pushes a out, and is then the one kept.
    limiter.consume('b', tiers);
    expect(limiter.size).toBe(2);
    expect((limiter.consume('a', tiers)).allowed).toBe(true);
  });
});
