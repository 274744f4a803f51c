import { randomUUID } from 'node:crypto';
import type { ClaimRequest } from './delivery-lease.js';

/**
 * Leases held at most by one dispatcher: this many times its concurrency (running, waiting and unwritten).
 * It claims again when fewer than half of them wait, so a claim (a transaction and a commit) is made for
 * hundreds of deliveries, and the queues do not run dry while it runs. Unwritten outcomes keep their leases
 * for a record batch's delay and write, a few hundred at full speed: at 16 times, the queues ran dry
 * between claims.
 */
export const CLAIM_AHEAD_FACTOR = 24;
/** Leases one dispatcher may hold to a host no other dispatcher holds a lease to: this many times the host limit. */
export const HOST_AHEAD_FACTOR = 32;
/**
 * An attempt starts only while its lease has this much time left beyond the request timeout, so it ends and
 * its outcome is written while the lease holds. A delivery that waited longer is released unattempted.
 */
export const LEASE_MARGIN_MS = 60_000;

export interface DispatcherSettings {
  intervalSeconds: number;
  retryDelaysSeconds: number[];
  timeoutMs: number;
  /** Attempts in flight at once in this process. */
  concurrency: number;
  /** DELIVERY_HOST_CONCURRENCY: attempts in flight at once to one subscriber host. */
  hostConcurrency: number;
  /** How long stop() lets attempts in flight finish before it interrupts and releases them. */
  drainTimeoutMs: number;
  now: () => Date;
  /** How long an outcome waits to be written with others; default RECORD_DELAY_MS. */
  recordDelayMs?: number;
}

/** What one dispatcher asks of a claim besides its settings: who it is, how many, and what it knows of the hosts. */
export interface ClaimAsk {
  /** This dispatcher's `claimed_by`. */
  instanceId: string;
  limit: number;
  slowHosts: readonly string[];
  answeringHosts: readonly string[];
}

/**
 * A claim with the dispatcher's settings: a lease long enough to wait, run a full timeout and be recorded
 * (only a crashed holder lets it run out), and leases ahead to hosts only this dispatcher serves.
 */
export function claimRequest(settings: DispatcherSettings, ask: ClaimAsk): ClaimRequest {
  const now = settings.now();
  return {
    now,
    leaseUntil: new Date(now.getTime() + 2 * settings.timeoutMs + LEASE_MARGIN_MS),
    claimToken: randomUUID(),
    limit: ask.limit,
    hostLimit: settings.hostConcurrency,
    claimedBy: ask.instanceId,
    hostAheadLimit: settings.hostConcurrency * HOST_AHEAD_FACTOR,
    slowHosts: ask.slowHosts,
    answeringHosts: ask.answeringHosts,
  };
}
