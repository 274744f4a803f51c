import { randomUUID } from 'node:crypto';
import type { Logger } from '@timetable/observability';
import type { HostBreakers } from '../breaker/host-breakers.js';
import { deliveryHeaders } from '../signing/sign-payload.js';
import { deliveryBody } from './delivery-body.js';
import { attemptDuration, deliveriesTotal, dueDeliveries } from './delivery-metrics.js';
import type { AttemptRecord, ClaimedDelivery, DeliveryStore } from './delivery-store.js';
import type { AttemptResult, HttpSender } from './http-sender.js';
import { afterFailedAttempt } from './retry-schedule.js';

export interface DispatcherSettings {
  intervalSeconds: number;
  retryDelaysSeconds: number[];
  timeoutMs: number;
  /** Attempts in flight at once, so one slow subscriber holds one slot, not the cycle. */
  concurrency: number;
  now: () => Date;
}

/**
 * The delivery cycle: leases due deliveries in small batches, sends each through its host's breaker,
 * and records the outcome under the lease. A crash leaves only leases behind, which expire; an
 * attempt counts only once recorded.
 */
export class DeliveryDispatcher {
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<void> | undefined;
  private running = false;

  constructor(
    private readonly store: DeliveryStore,
    private readonly sender: HttpSender,
    private readonly breakers: HostBreakers,
    private readonly logger: Logger,
    private readonly settings: DispatcherSettings,
  ) {}

  start(): void {
    this.running = true;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.current?.catch(() => undefined);
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
    const queue: ClaimedDelivery[] = [];
    let exhausted = false;
    let refill: Promise<void> | undefined;
    const next = async (): Promise<ClaimedDelivery | undefined> => {
      while (queue.length === 0 && !exhausted) {
        refill ??= this.claim()
          .then((claimed) => {
            queue.push(...claimed);
            exhausted = claimed.length === 0;
          })
          .finally(() => {
            refill = undefined;
          });
        await refill;
      }
      return queue.shift();
    };
    const worker = async () => {
      for (let claimed = await next(); claimed; claimed = await next()) await this.attempt(claimed);
    };
    await Promise.all(Array.from({ length: this.settings.concurrency }, worker));
  }

  private claim(): Promise<ClaimedDelivery[]> {
    const now = this.settings.now();
    // Long enough to cover a queued wait plus a full timeout; only a crashed holder lets it run out.
    const leaseUntil = new Date(now.getTime() + 2 * this.settings.timeoutMs + 60_000);
    return this.store.claimDue(now, leaseUntil, randomUUID(), this.settings.concurrency);
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
      const headers = deliveryHeaders(rawBody, sentAt, claimed.secret);
      const started = performance.now();
      const host = new URL(claimed.url).host;
      const outcome = await this.breakers.run(host, () => this.sender.post(claimed.url, headers, rawBody), (result) => !result.ok);
      if (outcome.kind === 'open') {
        await this.store.postpone(claimed, outcome.retryAt);
        deliveriesTotal.inc({ status: 'postponed' });
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
