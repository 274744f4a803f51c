import type { ClaimPacing } from './claim-pacing.js';
import type { DeliveryAttempt } from './delivery-attempt.js';
import type { ClaimedDelivery } from './delivery-lease.js';
import { LEASE_MARGIN_MS, type DispatcherSettings } from './dispatcher-settings.js';
import type { HostQueues } from './host-queues.js';
import type { InFlightAttempts } from './in-flight-attempts.js';
import type { OutcomeRecorder } from './outcome-recorder.js';

export interface AttemptStarterDeps {
  queues: HostQueues;
  inFlight: InFlightAttempts;
  attempts: DeliveryAttempt;
  recorder: OutcomeRecorder;
  pacing: ClaimPacing;
  settings: Pick<DispatcherSettings, 'now' | 'timeoutMs'>;
}

/**
 * Starts each waiting delivery the moment its host and the process have a free slot, so a host's next attempt
 * starts as its last one ends. A delivery whose lease has too little time left to finish and be recorded goes
 * back unattempted.
 */
export class AttemptStarter {
  private stopped = false;

  constructor(private readonly deps: AttemptStarterDeps) {}

  /** Starts nothing more: the dispatcher is stopping. */
  stop(): void {
    this.stopped = true;
  }

  /** Starts what the host and process limits allow; what waited too long for its lease goes back. */
  startReady(): void {
    if (this.stopped) return;
    const { queues, inFlight, recorder, settings } = this.deps;
    const latestStart = settings.now().getTime() + settings.timeoutMs + LEASE_MARGIN_MS;
    const stale: ClaimedDelivery[] = [];
    for (const delivery of queues.takeStartable()) {
      if (delivery.leaseUntil.getTime() < latestStart) {
        stale.push(delivery);
        queues.handedBack(delivery.host);
        continue;
      }
      inFlight.add(delivery, this.attempt(delivery));
    }
    if (stale.length > 0) {
      recorder.release(stale);
      // Their slots are free again.
      this.startReady();
    }
  }

  private async attempt(claimed: ClaimedDelivery): Promise<void> {
    // Set when the host answered with an HTTP response: what tells the queues it answers (HostQueues).
    let answeredAfterMs: number | undefined;
    try {
      answeredAfterMs = await this.deps.attempts.run(claimed);
    } finally {
      this.deps.queues.finished(claimed.host, answeredAfterMs);
      this.deps.pacing.attemptEnded();
      this.startReady();
    }
  }
}
