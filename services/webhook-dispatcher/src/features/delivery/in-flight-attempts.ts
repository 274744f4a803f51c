import type { ClaimedDelivery } from './delivery-lease.js';

/**
 * The attempts this dispatcher has under way (the load per host is read from the leases, across replicas),
 * and a signal for the cycle, which waits for the next attempt to end before claiming again.
 */
export class InFlightAttempts {
  private readonly attempts = new Map<string, Promise<void>>();
  private waiter: (() => void) | undefined;
  /** A wake-up that came while nobody waited: the next wait returns at once instead of missing it. */
  private woken = false;

  get size(): number {
    return this.attempts.size;
  }

  add(claimed: ClaimedDelivery, work: Promise<void>): void {
    const done = work.finally(() => {
      this.attempts.delete(claimed.id);
      this.wake();
    });
    this.attempts.set(claimed.id, done);
  }

  /** Resolves when an attempt ends, when woken, or after `timeoutMs` (so due work is looked for again). */
  nextChange(timeoutMs: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wake(), timeoutMs);
      this.waiter = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    if (waiter) waiter();
    else this.woken = true;
  }

  async settled(): Promise<void> {
    await Promise.allSettled(this.attempts.values());
  }
}
