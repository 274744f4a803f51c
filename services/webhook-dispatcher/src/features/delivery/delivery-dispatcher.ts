import { randomUUID } from 'node:crypto';
import type { Logger } from '@timetable/observability';
import type { HostBreakers } from '../breaker/host-breakers.js';
import { deliveryHeaders } from '../signing/sign-payload.js';
import { deliveryBody } from './delivery-body.js';
import { attemptDuration, deliveriesTotal, dueDeliveries } from './delivery-metrics.js';
import type { AttemptRecord, ClaimedDelivery, DeliveryStore } from './delivery-store.js';
import type { AttemptResult, HttpSender } from './http-sender.js';
import { InFlightAttempts } from './in-flight-attempts.js';
import { afterFailedAttempt } from './retry-schedule.js';

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
}

export interface DeliveryDispatcherDeps {
  store: DeliveryStore;
  sender: HttpSender;
  breakers: HostBreakers;
  logger: Logger;
  settings: DispatcherSettings;
}

/**
 * The delivery cycle. It leases only what can start at once (free slots, per-host limit, developers in
 * turn), starts each attempt through its host's breaker, and leases again whenever an attempt ends or an
 * interval passes, so a slow host never holds up the others. A cycle ends when nothing is in flight and
 * nothing is claimable. A crash leaves only leases behind, which expire; an attempt counts only once recorded.
 */
export class DeliveryDispatcher {
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<void> | undefined;
  private running = false;
  private stopping = false;
  private readonly inFlight = new InFlightAttempts();
  private readonly shutdown = new AbortController();

  private readonly store: DeliveryStore;
  private readonly sender: HttpSender;
  private readonly breakers: HostBreakers;
  private readonly logger: Logger;
  private readonly settings: DispatcherSettings;

  constructor(deps: DeliveryDispatcherDeps) {
    this.store = deps.store;
    this.sender = deps.sender;
    this.breakers = deps.breakers;
    this.logger = deps.logger;
    this.settings = deps.settings;
  }

  start(): void {
    this.running = true;
    this.schedule();
  }

  /**
   * Claims nothing more, lets attempts in flight finish within the drain timeout, then interrupts the rest:
   * an interrupted attempt is not counted and its delivery is released, due at once for another dispatcher.
   */
  async stop(): Promise<void> {
    this.running = false;
    this.stopping = true;
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
  }

  isHealthy(): boolean {
    return this.running;
  }

  /** One cycle; a call while one is under way joins it. */
  runCycle(): Promise<void> {
    this.current ??= this.cycle().finally(() => {
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

  private async cycle(): Promise<void> {
    dueDeliveries.set(await this.store.countDue(this.settings.now()));
    try {
      for (;;) {
        const free = this.settings.concurrency - this.inFlight.size;
        // Only a claim that no attempt in flight held back proves that nothing more is due now.
        let nothingMoreDue = this.stopping;
        if (!this.stopping && free > 0) {
          const busyWhileClaiming = this.inFlight.size > 0;
          const claimed = await this.claim(free);
          // stop() may have come while the claim ran: what it leased goes back at once, unattempted.
          if (this.stopping) {
            await Promise.all(claimed.map((delivery) => this.store.release(delivery)));
            continue;
          }
          for (const delivery of claimed) this.inFlight.add(delivery, this.attempt(delivery));
          if (claimed.length === free) continue;
          nothingMoreDue = !busyWhileClaiming;
        }
        if (this.inFlight.size === 0) {
          // The attempts that held a host at its limit may all have ended while the claim ran: claim again.
          if (nothingMoreDue) return;
          continue;
        }
        await this.inFlight.nextChange(this.settings.intervalSeconds * 1000);
      }
    } finally {
      await this.inFlight.settled();
    }
  }

  private claim(limit: number): Promise<ClaimedDelivery[]> {
    const now = this.settings.now();
    return this.store.claimDue({
      now,
      // Covers a full timeout with room to record; only a crashed holder lets it run out.
      leaseUntil: new Date(now.getTime() + 2 * this.settings.timeoutMs + 60_000),
      claimToken: randomUUID(),
      limit,
      hostLimit: this.settings.hostConcurrency,
    });
  }

  private async attempt(claimed: ClaimedDelivery): Promise<void> {
    try {
      if (claimed.webhookDeleted) {
        await this.store.fail(claimed, 'Webhook deleted');
        deliveriesTotal.inc({ status: 'failed' });
        return;
      }
      const sentAt = this.settings.now();
      const rawBody = JSON.stringify(deliveryBody(claimed.messageId, claimed.eventType, claimed.change, sentAt));
      const headers = deliveryHeaders(rawBody, sentAt, claimed.secret, claimed.id);
      const started = performance.now();
      const send = () => this.sender.post(claimed.url, headers, rawBody, this.shutdown.signal);
      const outcome = await this.breakers.run(claimed.host, send, (result) => !result.ok && !result.interrupted);
      if (outcome.kind === 'open') {
        await this.store.postpone(claimed, outcome.retryAt, this.settings.now());
        deliveriesTotal.inc({ status: 'postponed' });
        return;
      }
      if (outcome.result.interrupted) {
        await this.store.release(claimed);
        deliveriesTotal.inc({ status: 'released' });
        return;
      }
      attemptDuration.observe({ outcome: outcome.result.ok ? 'success' : 'failure' }, (performance.now() - started) / 1000);
      await this.record(claimed, outcome.result, sentAt, rawBody);
    } catch (error) {
      this.logger.error({ err: error, deliveryId: claimed.id }, 'delivery attempt not recorded; retried when its lease expires');
    }
  }

  private async record(claimed: ClaimedDelivery, result: AttemptResult, sentAt: Date, payload: string): Promise<void> {
    const attempts = claimed.attempts + 1;
    const finishedAt = this.settings.now();
    const next = result.ok
      ? { status: 'delivered' as const, nextRetryAt: null }
      : afterFailedAttempt(attempts, finishedAt, this.settings.retryDelaysSeconds);
    const record: AttemptRecord = {
      ...next,
      attempts,
      lastAttemptAt: sentAt,
      responseCode: result.responseCode,
      responseBody: result.responseBody,
      errorMessage: result.errorMessage,
      deliveredAt: result.ok ? finishedAt : null,
      payload,
    };
    const held = await this.store.recordAttempt(claimed, record);
    if (!held) this.logger.warn({ deliveryId: claimed.id }, 'delivery lease lost before recording; outcome discarded');
    deliveriesTotal.inc({ status: next.status === 'pending' ? 'retrying' : next.status });
  }
}
