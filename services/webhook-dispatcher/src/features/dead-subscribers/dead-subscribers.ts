import type { Knex } from '@timetable/db';
import type { Logger } from '@timetable/observability';
import { FailingWebhooks } from './failing-webhooks.js';
import { PendingDeadline } from './pending-deadline.js';

/** How often the job runs: the deadline and the disabling are hours and days, so minutes late is on time. */
export const DEAD_SUBSCRIBERS_INTERVAL_MS = 5 * 60_000;

export interface DeadSubscribersDeps {
  /** On the `webhooks` schema. */
  knex: Knex;
  /** DELIVERY_MAX_PENDING_HOURS */
  maxPendingHours: number;
  /** WEBHOOK_DISABLE_AFTER_DAYS */
  disableAfterDays: number;
  now: () => Date;
  logger: Logger;
}

export interface DeadSubscribersRun {
  /** Deliveries failed as given up. */
  givenUp: number;
  /** Webhooks the system disabled. */
  disabled: string[];
}

/**
 * What a subscriber that stays dead costs is bounded: its deliveries fail once pending past the deadline,
 * and its webhook is disabled once its deliveries have all failed for the given days. Every replica runs
 * it; both steps are single statements that skip or recheck what another changed meanwhile.
 */
export class DeadSubscribers {
  private readonly deadline: PendingDeadline;
  private readonly failing: FailingWebhooks;

  constructor(deps: DeadSubscribersDeps) {
    this.deadline = new PendingDeadline(deps);
    this.failing = new FailingWebhooks(deps);
  }

  async runOnce(): Promise<DeadSubscribersRun> {
    const givenUp = await this.deadline.runOnce();
    const disabled = await this.failing.disableDead();
    return { givenUp, disabled };
  }
}
