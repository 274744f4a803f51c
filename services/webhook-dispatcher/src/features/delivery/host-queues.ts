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
  /** Whether its running attempts count against the slow hosts' slots rather than the process's. */
  slow: boolean;
  /** When an attempt to the host last started or ended (the clock's milliseconds). */
  lastProgressAt: number;
}

export interface HostQueuesLimits {
  /** DELIVERY_HOST_CONCURRENCY: attempts running at once to one host. */
  hostLimit: number;
  /** Attempts running at once in this process, not counting those to slow hosts (which have as many again). */
  limit: number;
}

/**
 * The deliveries this dispatcher has leased but not yet started, per subscriber host in claim order, and
 * the attempts running per host. A delivery starts only while its host is below the host limit and the
 * process below its limit; when the process limit is what holds them back, hosts take turns.
 *
 * Attempts to slow hosts (see slowHosts) count against slots of their own, as many as the process limit,
 * not against the process's (so no more than twice the limit ever run): an attempt that waits for an answer that may never come costs a socket and a
 * timer, not CPU, and one subscriber that stopped answering would otherwise keep its host limit's worth of
 * the process's slots from the hosts that answer for as long as its attempts take to time out.
 */
export class HostQueues {
  /** In turn order: a host that has just started an attempt moves to the back. */
  private readonly hosts = new Map<string, HostQueue>();
  private waitingCount = 0;
  /** Attempts running to hosts that are not slow, and to slow hosts: each against a limit of its own. */
  private runningCount = 0;
  private slowRunningCount = 0;
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

  /** Attempts running, to slow hosts or not. */
  get running(): number {
    return this.runningCount + this.slowRunningCount;
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
    while (progress && (this.runningCount < this.limits.limit || this.slowRunningCount < this.limits.limit)) {
      progress = false;
      for (const [host, queue] of [...this.hosts]) {
        if (queue.running >= this.limits.hostLimit || queue.waiting.length === 0) continue;
        if ((queue.slow ? this.slowRunningCount : this.runningCount) >= this.limits.limit) continue;
        started.push(queue.waiting.shift()!);
        queue.running += 1;
        queue.lastProgressAt = this.clock();
        this.waitingCount -= 1;
        if (queue.slow) this.slowRunningCount += 1;
        else this.runningCount += 1;
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
    const queue = this.hosts.get(host);
    if (queue) {
      queue.running -= 1;
      if (tookMs !== undefined) queue.lastProgressAt = this.clock();
      if (queue.slow) this.slowRunningCount -= 1;
      else this.runningCount -= 1;
    }
    if (tookMs !== undefined && tookMs < SLOW_AFTER_MS) this.forgetSlow(host);
    if (queue) this.forgetIfIdle(host, queue);
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
      // Only while the slow hosts' slots have room for its attempts: never more than twice the limit run.
      if (this.slowRunningCount + queue.running <= this.limits.limit) this.countAs(queue, true);
    }
    for (const [host, seenAt] of this.slowSeenAt) {
      if (now - seenAt < SLOW_REMEMBERED_MS && this.slowSeenAt.size <= MAX_SLOW_HOSTS) break;
      this.forgetSlow(host);
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
      queue = { waiting: [], running: 0, slow: this.slowSeenAt.has(host), lastProgressAt: this.clock() };
      this.hosts.set(host, queue);
    }
    return queue;
  }

  private forgetSlow(host: string): void {
    if (!this.slowSeenAt.delete(host)) return;
    const queue = this.hosts.get(host);
    if (queue) this.countAs(queue, false);
  }

  /** Moves a host's running attempts to the slow hosts' slots or back to the process's. */
  private countAs(queue: HostQueue, slow: boolean): void {
    if (queue.slow === slow) return;
    const moved = slow ? queue.running : -queue.running;
    this.runningCount -= moved;
    this.slowRunningCount += moved;
    queue.slow = slow;
  }

  private forgetIfIdle(host: string, queue: HostQueue): void {
    if (queue.running === 0 && queue.waiting.length === 0) this.hosts.delete(host);
  }
}
