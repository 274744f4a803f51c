import type { ClaimedDelivery } from './delivery-store.js';

interface HostQueue {
  waiting: ClaimedDelivery[];
  running: number;
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

  constructor(private readonly limits: HostQueuesLimits) {}

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
        this.waitingCount -= 1;
        this.runningCount += 1;
        this.hosts.delete(host);
        this.hosts.set(host, queue);
        progress = true;
      }
    }
    return started;
  }

  finished(host: string): void {
    const queue = this.hosts.get(host);
    if (!queue) return;
    queue.running -= 1;
    this.runningCount -= 1;
    this.forgetIfIdle(host, queue);
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
      queue = { waiting: [], running: 0 };
      this.hosts.set(host, queue);
    }
    return queue;
  }

  private forgetIfIdle(host: string, queue: HostQueue): void {
    if (queue.running === 0 && queue.waiting.length === 0) this.hosts.delete(host);
  }
}
