import { decide, type RateDecision, type RateTier } from './rate-limiter.js';

/** What the shared store granted: how many tokens, and each tier's count (grant included) and time to reset. */
export interface LeaseGrant {
  granted: number;
  counts: number[];
  ttlsMs: number[];
}

interface Lease {
  tiers: RateTier[];
  /** Tokens granted, and those not yet handed to a request. */
  size: number;
  left: number;
  grantedAt: number;
  /** When the lease is void: its earliest tier reset, or `LEASE_MAX_MS` after the grant. */
  expiresAt: number;
  /** Each tier's shared count right after the grant, and when the tier resets (local clock). */
  counts: number[];
  resetsAt: number[];
}

/** A lease lives at most this long, so tokens one replica holds are never kept from the others for longer. */
export const LEASE_MAX_MS = 1_000;
/** A lease is sized to hold about this much of the client's recent traffic at this replica. */
const LEASE_TARGET_MS = 100;
/** A lease never holds more than a quarter of the smallest tier, nor more than this. */
const LEASE_MAX_TOKENS = 1_000;
/** Room for this many clients' leases: a few megabytes. */
const DEFAULT_MAX_LEASES = 20_000;

/**
 * One replica's leases of rate tokens taken in batches from a budget that every replica shares. A request
 * spends a token of its client's lease without asking the store; an empty or expired lease is renewed by the
 * caller (one store round trip), sized from the client's traffic at this replica: a client that sends a request
 * now and then gets leases of one token, which is exactly the shared counter, and a busy client gets leases of up
 * to a quarter of its smallest tier, so that most of its requests are decided here. The budget is never exceeded
 * (tokens are taken from the shared counters before they are spent); the price is that tokens one replica holds
 * and does not use within the lease (at most a second) are spent for nothing, so a busy client spread over
 * several replicas may be refused slightly before its limit. A refusal is kept for the lease's life too: within
 * a fixed window a count only grows, so the store would refuse again.
 */
export class RateLeases {
  private readonly leases = new Map<string, Lease>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxLeases = DEFAULT_MAX_LEASES,
  ) {}

  get size(): number {
    return this.leases.size;
  }

  /** Spends a token of the client's lease, or repeats its refusal; `undefined` when the lease must be renewed. */
  spend(clientKey: string, tiers: RateTier[]): RateDecision | undefined {
    const lease = this.leases.get(clientKey);
    const now = this.now();
    if (!lease || lease.tiers !== tiers || lease.expiresAt <= now) return undefined;
    if (lease.size === 0) return refusal(lease, now);
    if (lease.left === 0) return undefined;
    lease.left -= 1;
    return allowance(lease, now);
  }

  /** How many tokens to ask the store for when renewing the client's lease. */
  sizeOfNext(clientKey: string, tiers: RateTier[]): number {
    const previous = this.leases.get(clientKey);
    const cap = Math.max(1, Math.min(LEASE_MAX_TOKENS, Math.floor(Math.min(...tiers.map((tier) => tier.limit)) / 4)));
    if (!previous || previous.tiers !== tiers) return 1;
    const used = previous.size - previous.left;
    const elapsed = Math.max(1, this.now() - previous.grantedAt);
    return Math.min(cap, Math.max(1, Math.ceil((used * LEASE_TARGET_MS) / elapsed)));
  }

  /** Records a grant from the store and spends its first token on the request that asked for it. */
  record(clientKey: string, tiers: RateTier[], grant: LeaseGrant): RateDecision {
    const now = this.now();
    const resetsAt = grant.ttlsMs.map((ttl) => now + ttl);
    const lease: Lease = {
      tiers,
      size: grant.granted,
      left: Math.max(0, grant.granted - 1),
      grantedAt: now,
      expiresAt: Math.min(now + LEASE_MAX_MS, ...resetsAt),
      counts: grant.counts,
      resetsAt,
    };
    // Deleted first so the client moves to the end of the insertion order (the most recently renewed).
    this.leases.delete(clientKey);
    this.leases.set(clientKey, lease);
    this.makeRoom(now);
    return lease.size === 0 ? refusal(lease, now) : allowance(lease, now);
  }

  clear(): void {
    this.leases.clear();
  }

  /** Expired leases go first, then those renewed longest ago: forgetting one only wastes its unused tokens. */
  private makeRoom(now: number): void {
    if (this.leases.size <= this.maxLeases) return;
    for (const [key, lease] of this.leases) if (lease.expiresAt <= now) this.leases.delete(key);
    for (const key of this.leases.keys()) {
      if (this.leases.size <= this.maxLeases) break;
      this.leases.delete(key);
    }
  }
}

/** The decision for a request paid from the lease: tokens still in it count as the client's remaining budget. */
function allowance(lease: Lease, now: number): RateDecision {
  return decide(
    lease.tiers,
    lease.counts.map((count) => count - lease.left),
    lease.resetsAt.map((resetsAt) => (resetsAt - now) / 1000),
  );
}

/** The decision for a request the store had no token for: one more than the count exceeds the full tier. */
function refusal(lease: Lease, now: number): RateDecision {
  return decide(
    lease.tiers,
    lease.counts.map((count) => count + 1),
    lease.resetsAt.map((resetsAt) => (resetsAt - now) / 1000),
  );
}
