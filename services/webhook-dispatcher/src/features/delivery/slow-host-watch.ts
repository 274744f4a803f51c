import type { HostQueues } from './host-queues.js';
import type { OutcomeRecorder } from './outcome-recorder.js';

/** How often the dispatcher looks for hosts that have become slow. */
const SLOW_CHECK_MS = 100;

/**
 * The hosts the dispatcher leases no more than they can run. What waits for a host that has become slow
 * (HostQueues.slowHosts) is handed back, and the next claims lease it no more than its slots: its queue would
 * hold leases the other hosts could use. Checked at most every SLOW_CHECK_MS, since the check walks every host.
 */
export class SlowHostWatch {
  /** The hosts found slow at the last check. */
  hosts: string[] = [];
  private checkedAt = 0;

  constructor(private readonly deps: { queues: HostQueues; recorder: OutcomeRecorder }) {}

  /**
   * Looks again if it is time, hands back what waits for slow hosts, and tells whether what waits for the
   * others may start now: slow hosts' attempts no longer take the process's slots, so some may be free.
   */
  check(): boolean {
    const now = performance.now();
    if (now - this.checkedAt < SLOW_CHECK_MS) return false;
    this.checkedAt = now;
    const { queues, recorder } = this.deps;
    this.hosts = queues.slowHosts();
    for (const host of this.hosts) {
      const waiting = queues.takeWaiting(host);
      if (waiting.length > 0) recorder.release(waiting);
    }
    return this.hosts.length > 0 && queues.waiting > 0;
  }
}
