import type { ClaimedDelivery } from './delivery-lease.js';
import { HostReputation, SLOW_AFTER_MS } from './host-reputation.js';

interface HostQueue {
  waiting: ClaimedDelivery[];
  running: number;
  /** Whether its running attempts count against the spare slots rather than the process's. */
  spare: boolean;
  /** When an attempt to the host last ended, or its first one started after none ran (the clock's milliseconds). */
  lastProgressAt: number;
}

export interface HostQueuesLimits {
  /** DELIVERY_HOST_CONCURRENCY: attempts running at once to one host. */
  hostLimit: number;
  /** Attempts running at once on the process's slots, and as many again on the spare slots. */
  limit: number;
}

/**
 * The deliveries this dispatcher has leased but not yet started, per subscriber host in claim order, and
 * the attempts running per host. A delivery starts only while its host is below the host limit and its slots
 * below the process limit; when that limit is what holds them back, hosts take turns.
 *
 * There are two sets of slots, each as many as the process limit. A host that has answered an attempt
 * within SLOW_AFTER_MS (in the last SLOW_REMEMBERED_MS) runs on the process's slots; a slow host (see
 * slowHosts), or one not yet known to answer, on the spare slots while any are free, else on the process's. An attempt that waits for an answer
 * that may never come costs a socket and a timer, not CPU: a subscriber that stopped answering, whether known
 * before or new, would otherwise keep its host limit's worth of the process's slots from the hosts that answer
 * for as long as its attempts take to time out. A host's running attempts move between the two sets when it
 * turns slow or answers, and only when the other set has room for them: neither set ever holds more than the
 * limit, so no more than twice the limit run.
 */
export class HostQueues {
  /** In turn order: a host that has just started an attempt moves to the back. */
  private readonly hosts = new Map<string, HostQueue>();
  private waitingCount = 0;
  /** Attempts running on the process's slots, and on the spare slots. */
  private runningCount = 0;
  private spareRunningCount = 0;
  /** Which hosts were seen stalled and which answered, remembered beyond their queues. */
  private readonly reputation = new HostReputation();

  constructor(
    private readonly limits: HostQueuesLimits,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  get waiting(): number {
    return this.waitingCount;
  }

  /** Attempts running, on either set of slots. */
  get running(): number {
    return this.runningCount + this.spareRunningCount;
  }

  /** Attempts running on the spare slots. */
  get runningOnSpare(): number {
    return this.spareRunningCount;
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
    // The first pass looks at every host; later ones only at those that started one in the pass before, since
    // slots only fill up during the call and no host skipped once can start later in it.
    let candidates: Iterable<[string, HostQueue]> = this.hosts;
    while (!this.slotsFull()) {
      // Hosts that start an attempt go to the back of the turn order, after the pass.
      const turned: [string, HostQueue][] = [];
      for (const [host, queue] of candidates) {
        if (this.slotsFull()) break;
        if (queue.running >= this.limits.hostLimit || queue.waiting.length === 0) continue;
        if (queue.running === 0) queue.spare = this.startsOnSpare(host);
        if ((queue.spare ? this.spareRunningCount : this.runningCount) >= this.limits.limit) continue;
        started.push(queue.waiting.shift()!);
        if (queue.running === 0) queue.lastProgressAt = this.clock();
        queue.running += 1;
        this.waitingCount -= 1;
        if (queue.spare) this.spareRunningCount += 1;
        else this.runningCount += 1;
        turned.push([host, queue]);
      }
      for (const [host, queue] of turned) {
        this.hosts.delete(host);
        this.hosts.set(host, queue);
      }
      if (turned.length === 0) break;
      candidates = turned;
    }
    return started;
  }

  /** Both sets of slots are taken. */
  private slotsFull(): boolean {
    return this.runningCount >= this.limits.limit && this.spareRunningCount >= this.limits.limit;
  }

  /**
   * An attempt to `host` ended; `answeredAfterMs` when the host answered it with an HTTP response, after that
   * long (within SLOW_AFTER_MS it shows the host answers, and is not slow or no longer). A failed connection
   * or an open breaker shows nothing about the host's answers.
   */
  finished(host: string, answeredAfterMs?: number): void {
    this.stopped(host, true);
    if (answeredAfterMs !== undefined && answeredAfterMs < SLOW_AFTER_MS) this.reputation.answered(host, this.clock());
    const queue = this.hosts.get(host);
    if (queue) {
      this.settle(host, queue);
      this.forgetIfIdle(host, queue);
    }
  }

  /** A delivery taken to start was handed back unattempted: its slot is free, and nothing ended at the host. */
  handedBack(host: string): void {
    this.stopped(host, false);
    const queue = this.hosts.get(host);
    if (queue) this.forgetIfIdle(host, queue);
  }

  private stopped(host: string, attemptEnded: boolean): void {
    const queue = this.hosts.get(host);
    if (queue) {
      queue.running -= 1;
      if (attemptEnded) queue.lastProgressAt = this.clock();
      if (queue.spare) this.spareRunningCount -= 1;
      else this.runningCount -= 1;
    }
  }

  /**
   * The hosts that are slow: seen with attempts running of which none had ended for SLOW_AFTER_MS (a host
   * that answers slowly, or not at all), within SLOW_REMEMBERED_MS and with no answer from it within
   * SLOW_AFTER_MS since. What waits for them holds leases the other hosts could use. Not only hosts at their
   * limit: when more hosts hang than the process has slots for, turns keep each below its limit.
   */
  slowHosts(): string[] {
    const now = this.clock();
    for (const [host, queue] of this.hosts) {
      if (queue.running === 0 || queue.lastProgressAt > now - SLOW_AFTER_MS) continue;
      this.reputation.stalled(host, now);
    }
    this.reputation.forgetOld(now);
    for (const [host, queue] of this.hosts) this.settle(host, queue);
    return this.reputation.slowHosts();
  }

  /**
   * Hosts known to answer: seen answering within SLOW_AFTER_MS in the last SLOW_REMEMBERED_MS, and not slow
   * since (as remembered at the last `slowHosts`). Only these are leased ahead of their slots.
   */
  answeringHosts(): string[] {
    return this.reputation.answeringHosts();
  }

  /** Removes and returns what waits for one host (its breaker opened) or, without a host, for every host. */
  takeWaiting(host?: string): ClaimedDelivery[] {
    if (host !== undefined) {
      const queue = this.hosts.get(host);
      return queue ? this.takeWaitingOf(host, queue) : [];
    }
    return [...this.hosts].flatMap(([name, queue]) => this.takeWaitingOf(name, queue));
  }

  private takeWaitingOf(host: string, queue: HostQueue): ClaimedDelivery[] {
    const taken = queue.waiting.splice(0);
    this.waitingCount -= taken.length;
    this.forgetIfIdle(host, queue);
    return taken;
  }

  /**
   * A host known to answer (and not slow since) starts on the process's slots; a slow host, or one not known
   * either way, on the spare ones while any is free, else on the process's: a host that answers, however
   * slowly, must not wait behind hung attempts for slots the process has free.
   */
  private startsOnSpare(host: string): boolean {
    if (this.reputation.isAnswering(host)) return false;
    return this.spareRunningCount < this.limits.limit;
  }

  /** Moves a slow host's running attempts to the spare slots and an answering host's back, if there is room for them. */
  private settle(host: string, queue: HostQueue): void {
    const spare = this.reputation.isSlow(host) || (!this.reputation.hasAnswered(host) && queue.spare);
    if (queue.spare === spare) return;
    if ((spare ? this.spareRunningCount : this.runningCount) + queue.running > this.limits.limit) return;
    const moved = spare ? queue.running : -queue.running;
    this.runningCount -= moved;
    this.spareRunningCount += moved;
    queue.spare = spare;
  }

  private queueOf(host: string): HostQueue {
    let queue = this.hosts.get(host);
    if (!queue) {
      queue = { waiting: [], running: 0, spare: false, lastProgressAt: this.clock() };
      this.hosts.set(host, queue);
    }
    return queue;
  }

  private forgetIfIdle(host: string, queue: HostQueue): void {
    if (queue.running === 0 && queue.waiting.length === 0) this.hosts.delete(host);
  }
}
