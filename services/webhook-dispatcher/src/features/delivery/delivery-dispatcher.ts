import { randomUUID } from 'node:crypto';
import type { Logger } from '@timetable/observability';
import type { EndpointBreakers } from '../breaker/endpoint-breakers.js';
import { AttemptStarter } from './attempt-starter.js';
import { ClaimPacing } from './claim-pacing.js';
import { CLAIM_AHEAD_FACTOR, claimRequest, type DispatcherSettings } from './dispatcher-settings.js';
import { DeliveryAttempt } from './delivery-attempt.js';
import { dueDeliveries } from './delivery-metrics.js';
import type { ClaimedDelivery, DeliveryStore } from './delivery-store.js';
import { HostQueues } from './host-queues.js';
import { SLOW_AFTER_MS } from './host-reputation.js';
import type { HttpSender } from './http-sender.js';
import { InFlightAttempts } from './in-flight-attempts.js';
import { OutcomeRecorder } from './outcome-recorder.js';
import { SlowHostWatch } from './slow-host-watch.js';


export interface DeliveryDispatcherDeps {
  store: DeliveryStore;
  sender: HttpSender;
  breakers: EndpointBreakers;
  logger: Logger;
  settings: DispatcherSettings;
}

/**
 * The delivery cycle. It leases due deliveries ahead of its free slots (fairly: per-host caps, developers in
 * turn; see CLAIM_DUE_SQL), keeps them in per-host queues, and starts each attempt (DeliveryAttempt, through
 * its endpoint's breaker) as soon as the host and the process have a free slot, so a host's next attempt starts the moment
 * its last one ends, without a round trip to the database. Outcomes are written in batches (OutcomeRecorder);
 * a delivery stays leased until its outcome is written. It leases again when its queue runs low and whenever
 * an interval passes (after a short claim, once half of what it brought has ended or a second has passed), so
 * a slow host never holds up the others. A cycle ends when nothing is in flight,
 * waiting or unwritten and nothing is claimable. A crash leaves only leases behind, which expire; an attempt
 * counts only once recorded.
 */
export class DeliveryDispatcher {
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<void> | undefined;
  private running = false;
  private stopping = false;
  /** Identifies this dispatcher's leases (`claimed_by`), so it may claim ahead for hosts only it serves. */
  private readonly instanceId = randomUUID();
  private readonly inFlight = new InFlightAttempts();
  private readonly queues: HostQueues;
  private readonly recorder: OutcomeRecorder;
  private readonly shutdown = new AbortController();
  private readonly pacing: ClaimPacing;
  /** Hosts that get no leases ahead. */
  private readonly slowHosts: SlowHostWatch;
  /** runCycle was called while this cycle ran: claim at the next turn of its loop, whatever the pacing says. */
  private claimAsked = false;

  private readonly store: DeliveryStore;
  private readonly starter: AttemptStarter;
  private readonly logger: Logger;
  private readonly settings: DispatcherSettings;

  constructor(deps: DeliveryDispatcherDeps) {
    this.store = deps.store;
    this.logger = deps.logger;
    this.settings = deps.settings;
    this.queues = new HostQueues({ hostLimit: deps.settings.hostConcurrency, limit: deps.settings.concurrency });
    this.recorder = new OutcomeRecorder({
      store: deps.store,
      logger: deps.logger,
      delayMs: deps.settings.recordDelayMs,
      // A written batch frees the leases it held. The cycle otherwise looks again only when an attempt
      // ends or a second passes, so when the only attempts left hang it would sit with room to claim; and
      // the pacing counts a batch of outcomes as an end, or a claim that came back short because those
      // leases still held a host at its cap would wait for its pause. A batch of releases only does not
      // count: what was handed back unstarted would be claimed again at once, to be handed back again.
      onWritten: (outcomes) => {
        if (outcomes > 0) this.pacing.outcomesWritten();
        this.inFlight.wake();
      },
    });
    this.slowHosts = new SlowHostWatch({ queues: this.queues, recorder: this.recorder });
    this.pacing = new ClaimPacing(deps.settings.intervalSeconds * 1000);
    const attempts = new DeliveryAttempt({
      store: deps.store, sender: deps.sender, breakers: deps.breakers, queues: this.queues, recorder: this.recorder, logger: deps.logger,
      retryDelaysSeconds: deps.settings.retryDelaysSeconds, now: deps.settings.now, shutdown: this.shutdown.signal,
    });
    this.starter = new AttemptStarter({
      queues: this.queues, inFlight: this.inFlight, attempts, recorder: this.recorder, pacing: this.pacing, settings: deps.settings,
    });
  }

  start(): void {
    this.running = true;
    this.schedule();
  }

  /**
   * Claims nothing more and releases what waits, lets attempts in flight finish within the drain timeout,
   * then interrupts the rest: an interrupted attempt is not counted and its delivery is released, due at
   * once for another dispatcher. Every outcome is written before it resolves.
   */
  async stop(): Promise<void> {
    this.running = false;
    this.stopping = true;
    this.starter.stop();
    clearTimeout(this.timer);
    this.inFlight.wake();
    const cycle = this.current?.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([
      cycle?.then(() => true) ?? Promise.resolve(true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), this.settings.drainTimeoutMs))),
    ]);
    clearTimeout(timer);
    if (!drained) {
      this.logger.warn({ attempts: this.inFlight.size }, 'drain timeout: interrupting attempts in flight and releasing their deliveries');
      this.shutdown.abort();
      await cycle;
    }
    await this.recorder.flushed();
  }

  isHealthy(): boolean {
    return this.running;
  }

  /**
   * One cycle. A call while one is under way has it claim what is due now rather than when its pacing would,
   * and resolves when it ends: a cycle lasts while any attempt is in flight, which is as long as a request
   * timeout when a subscriber does not answer, and new work would otherwise wait for the pacing's pause.
   */
  runCycle(): Promise<void> {
    if (this.current) {
      this.claimAsked = true;
      this.inFlight.wake();
      // Should the cycle end before it took the request (its last claim was under way), another one claims.
      return this.current.then(() => (this.claimAsked ? this.runCycle() : undefined));
    }
    this.current = this.cycle().finally(() => {
      this.current = undefined;
    });
    return this.current;
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.runCycle()
        .catch((error: unknown) => this.logger.error({ err: error }, 'delivery cycle failed'))
        .finally(() => {
          if (this.running) this.schedule();
        });
    }, this.settings.intervalSeconds * 1000);
  }

  /** Leases this dispatcher holds: waiting, running, or ended with the outcome not yet written. */
  private get held(): number {
    return this.queues.waiting + this.inFlight.size + this.recorder.size;
  }

  private async cycle(): Promise<void> {
    // A new cycle claims at once: what was asked of the one before is done.
    this.claimAsked = false;
    // Counted while the first claim runs: the gauge is for dashboards, and the first attempts need not wait for it.
    const counted = this.store.countDue(this.settings.now()).then(
      (due) => dueDeliveries.set(due),
      (error: unknown) => this.logger.warn({ err: error }, 'could not count the due deliveries'),
    );
    const maxHeld = this.settings.concurrency * CLAIM_AHEAD_FACTOR;
    const intervalMs = this.settings.intervalSeconds * 1000;
    this.pacing.allowNow();
    try {
      for (;;) {
        if (this.stopping) {
          this.recorder.release(this.queues.takeWaiting());
          if (this.inFlight.size === 0) return;
          await this.inFlight.nextChange(intervalMs);
          continue;
        }
        if (this.slowHosts.check()) this.starter.startReady();
        if (this.claimAsked) {
          // Taken here, not where it was asked: a claim under way when it came would overwrite the pacing.
          this.claimAsked = false;
          this.pacing.allowNow();
        }
        // Only a claim that none of this dispatcher's leases held back proves that nothing more is due now.
        let nothingMoreDue = false;
        if (this.wantsClaim(maxHeld) && this.pacing.isDue()) {
          const room = maxHeld - this.held;
          const leasesHeld = this.held > 0;
          this.pacing.claiming();
          const claimed = await this.claim(room);
          this.pacing.claimed(claimed.length, room);
          // stop() may have come while the claim ran: what it leased goes back at once, unattempted.
          if (this.stopping) {
            this.recorder.release(claimed);
            continue;
          }
          this.queues.add(claimed);
          this.starter.startReady();
          nothingMoreDue = claimed.length < room && !leasesHeld;
        }
        if (this.inFlight.size === 0 && this.queues.waiting === 0) {
          if (nothingMoreDue) return;
          // This dispatcher's unwritten leases may have held a host at its cap: write them, then claim again.
          await this.recorder.flushed();
          this.pacing.allowNow();
          continue;
        }
        // Woken when an attempt ends or outcomes are written (either frees room to claim), or when the pacing's
        // pause is over (asked after any claim above, so the pause runs from when that claim came back); with
        // attempts in flight, look again at least as often as a host can turn slow (SlowHostWatch).
        const waitMs = this.wantsClaim(maxHeld) ? this.pacing.waitMs() : intervalMs;
        await this.inFlight.nextChange(this.inFlight.size > 0 ? Math.min(waitMs, SLOW_AFTER_MS) : waitMs);
      }
    } finally {
      await this.inFlight.settled();
      this.recorder.release(this.queues.takeWaiting());
      await this.recorder.flushed();
      // Last: a slow count must not hold up the releases and outcomes above.
      await counted;
    }
  }

  /** Whether there is room for more leases and the queues have run low enough to claim. */
  private wantsClaim(maxHeld: number): boolean {
    return maxHeld - this.held > 0 && this.queues.waiting < maxHeld / 2;
  }

  private claim(limit: number): Promise<ClaimedDelivery[]> {
    return this.store.claimDue(
      claimRequest(this.settings, {
        instanceId: this.instanceId,
        limit,
        slowHosts: this.slowHosts.hosts,
        // A host not yet known to answer gets its slots' worth until it does: one that never answers would
        // otherwise hold a queue of up to hostAheadLimit leases, room the others could use, until it counts as slow.
        answeringHosts: this.queues.answeringHosts(),
      }),
    );
  }
}
