import type { Knex } from '@timetable/db';
import { deliveriesTotal } from '../delivery/delivery-metrics.js';

const HOUR_MS = 3_600_000;
/** Deliveries given up per statement, so a first run over a large backlog never holds long locks. */
const BATCH = 5000;

/**
 * Pending longer than the deadline, and not leased now: a delivery in flight is left to its attempt, and
 * looked at again on the next run. Rows a claim has locked are skipped the same way. Its lease columns are
 * cleared: a lease that ran out is no longer counted anyway (lease_counts), and a holder that still records
 * its outcome finds the delivery no longer pending and discards it. The chosen rows are updated through their
 * ids as an array, a probe of the primary key each: with `id in (chosen)` the planner read the whole table
 * and hashed it against them (as it did for the claim, CLAIM_DUE_SQL).
 */
export const GIVE_UP_SQL = `
with chosen as (
  select id from deliveries
  where status = 'pending' and created_at < :deadline and (claimed_until is null or claimed_until <= :now)
  limit :batch
  for update skip locked
)
update deliveries set status = 'failed', next_retry_at = null, error_message = :errorMessage,
  claim_token = null, claimed_until = null, claimed_by = null
where id = any(array(select id from chosen))`;

export interface PendingDeadlineDeps {
  /** On the `webhooks` schema. */
  knex: Knex;
  /** DELIVERY_MAX_PENDING_HOURS */
  maxPendingHours: number;
  now: () => Date;
}

/**
 * Bounds a dead subscriber's backlog: a delivery still pending DELIVERY_MAX_PENDING_HOURS after it was
 * queued fails, with an errorMessage saying it was given up (its last attempt's answer, if any, stays).
 * An open breaker postpones attempts without consuming them, so without this a subscriber that stays dead
 * would keep its deliveries pending for ever. `recover` queues them again.
 */
export class PendingDeadline {
  private readonly knex: Knex;
  private readonly maxPendingHours: number;
  private readonly now: () => Date;

  constructor(deps: PendingDeadlineDeps) {
    this.knex = deps.knex;
    this.maxPendingHours = deps.maxPendingHours;
    this.now = deps.now;
  }

  /** Gives up what is past the deadline now; returns how many deliveries it failed. */
  async runOnce(): Promise<number> {
    const now = this.now();
    const bindings = {
      now,
      deadline: new Date(now.getTime() - this.maxPendingHours * HOUR_MS),
      errorMessage: givenUpMessage(this.maxPendingHours),
      batch: BATCH,
    };
    let total = 0;
    for (;;) {
      const result = await this.knex.raw<{ rowCount: number }>(GIVE_UP_SQL, bindings);
      total += result.rowCount;
      if (result.rowCount < BATCH) break;
    }
    if (total > 0) deliveriesTotal.inc({ status: 'given_up' }, total);
    return total;
  }
}

/** The errorMessage a given-up delivery carries, for its owner reading the deliveries page. */
export function givenUpMessage(maxPendingHours: number): string {
  const hours = `${maxPendingHours} ${maxPendingHours === 1 ? 'hour' : 'hours'}`;
  return `Given up: still not delivered ${hours} after it was queued; POST /webhooks/:id/recover queues it again`;
}
