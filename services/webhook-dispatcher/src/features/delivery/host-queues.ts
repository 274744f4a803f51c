import type { ClaimedDelivery } from './delivery-store.js';

/** How long a host's every slot may be taken without an attempt ending before the host counts as slow. */
export const SLOW_AFTER_MS = 1000;
/** How long a host stays slow after it was last seen stalled, unless an attempt to it ends quickly first. */
export const SLOW_REMEMBERED_MS = 5 * 60_000;
/** Slow hosts remembered at most; beyond it the one seen stalled longest ago is forgotten. */
export const MAX_SLOW_HOSTS = 1000;

interface HostQueue {
  waiting: ClaimedDelivery[];
  running: number;
  /** When an attempt to the host last started or ended (the clock's milliseconds). */
  lastProgressAt: number;
}

export interface HostQueuesLimits {
  /** DELIVERY_HOST_CONCURRENCY: attempts running at once to one host. */
  hostLimit: number;
  /** Attempts running at once in this process. */
  limit: number;
}

/**
 * The deliveries this dispatcher has leased but not yet started, per subscriber host in claim order, and
 * the attempts running per host. A delivery starts only while its host is below the host limit and the
 * process below its limit; when the process limit is what holds them back, hosts take turns.
 */
export class HostQueues {
  /** In turn order: a host that has just started an attempt moves to the back. */
  private readonly hosts = new Map<string, HostQueue>();
  private waitingCount = 0;
  private runningCount = 0;
  /**
   * Slow hosts and when each was last seen stalled, oldest first. Kept apart from the queues, which are
   * forgotten when a host has nothing running or waiting: a host that never answers is idle between the
   * timeouts of its attempts, and would otherwise be leased ahead again after each of them.
   */
  private readonly slowSeenAt = new Map<string, number>();

  constructor(
    private readonly limits: HostQueuesLimits,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  get waiting(): number {
    return this.waitingCount;
  }

  get running(): number {
    return this.runningCount;
  }

  add(claimed: readonly ClaimedDelivery[]): void {
    for (const delivery of claimed) {
      this.queueOf(delivery.host).waiting.push(delivery);
      this.waitingCount += 1;
    }
  }

  /** The deliveries that may start now, each counted as running until `finished` is called for its host. */
  takeStartable(): ClaimedDelivery[] {
    const started: ClaimedDelivery[] = [];
    let progress = true;
    while (progress && this.runningCount < this.limits.limit) {
      progress = false;
      for (const [host, queue] of [...this.hosts]) {
        if (this.runningCount >= this.limits.limit) break;
        if (queue.running >= this.limits.hostLimit || queue.waiting.length === 0) continue;
        started.push(queue.waiting.shift()!);
        queue.running += 1;
        queue.lastProgressAt = this.clock();
        this.waitingCount -= 1;
        this.runningCount += 1;
        this.hosts.delete(host);
        this.hosts.set(host, queue);
        progress = true;
      }
    }
    return started;
  }

  /**
   * An attempt to `host` ended after `tookMs` (one that ended quickly shows the host is not slow, or no longer);
   * without `tookMs`, a delivery taken to start was handed back unattempted.
   */
  finished(host: string, tookMs?: number): void {
    if (tookMs !== undefined && tookMs < SLOW_AFTER_MS) this.slowSeenAt.delete(host);
    const queue = this.hosts.get(host);
    if (!queue) return;
    queue.running -= 1;
    if (tookMs !== undefined) queue.lastProgressAt = this.clock();
    this.runningCount -= 1;
    this.forgetIfIdle(host, queue);
  }

  /**
   * The hosts that are slow: seen with every slot taken by attempts of which none had ended for SLOW_AFTER_MS
   * (a host that answers slowly, or not at all), within SLOW_REMEMBERED_MS and with no attempt to it ending
   * quickly since. Their next attempt cannot start before one of those ends, so what waits for them holds
   * leases the other hosts could use.
   */
  slowHosts(): string[] {
    const now = this.clock();
    for (const [host, queue] of this.hosts) {
      if (queue.running < this.limits.hostLimit || queue.lastProgressAt > now - SLOW_AFTER_MS) continue;
      // Re-inserted, so the map stays in the order of when each host was last seen stalled.
      this.slowSeenAt.delete(host);
      this.slowSeenAt.set(host, now);
    }
    for (const [host, seenAt] of this.slowSeenAt) {
      if (now - seenAt < SLOW_REMEMBERED_MS && this.slowSeenAt.size <= MAX_SLOW_HOSTS) break;
      this.slowSeenAt.delete(host);
    }
    return [...this.slowSeenAt.keys()];
  }

  /** Removes and returns what waits for one host (its breaker opened) or, without a host, for every host. */
  takeWaiting(host?: string): ClaimedDelivery[] {
    const taken: ClaimedDelivery[] = [];
    for (const [name, queue] of this.hosts) {
      if (host !== undefined && name !== host) continue;
      taken.push(...queue.waiting.splice(0));
      this.forgetIfIdle(name, queue);
    }
    this.waitingCount -= taken.length;
    return taken;
  }

  private queueOf(host: string): HostQueue {
    let queue = this.hosts.get(host);
    if (!queue) {
      queue = { waiting: [], running: 0, lastProgressAt: this.clock() };
      this.hosts.set(host, queue);
    }
    return queue;
  }

  private forgetIfIdle(host: string, queue: HostQueue): void {
    if (queue.running === 0 && queue.waiting.length === 0) this.hosts.delete(host);
  }
}
