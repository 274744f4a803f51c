import type { Knex } from '@timetable/db';
import type { ChangeContent } from './delivery-body.js';

/** A delivery this dispatcher holds the lease of, with what it needs to build and send the body. */
export interface ClaimedDelivery {
  id: string;
  claimToken: string;
  messageId: string;
  eventType: string;
  attempts: number;
  url: string;
  secret: string | null;
  webhookDeleted: boolean;
  change: ChangeContent | null;
}

export interface AttemptRecord {
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastAttemptAt: Date;
  nextRetryAt: Date | null;
  responseCode: number | null;
  responseBody: string | null;
  errorMessage: string | null;
  deliveredAt: Date | null;
  /** The raw JSON body sent, stored verbatim. */
  payload: string;
}

interface ClaimRow {
  id: string;
  message_id: string;
  event_type: string;
  attempts: number;
  url: string;
  secret: string | null;
  webhook_deleted: boolean;
  entity_type: string | null;
  entity_id: string;
  action: string;
  changed_fields: string[];
  previous_data: Record<string, unknown> | null;
  new_data: Record<string, unknown> | null;
}

// One short statement: SKIP LOCKED lets replicas claim disjoint rows, and Postgres re-checks the
// lease condition on a row another claimer has just updated, so a row is never leased twice.
const CLAIM_SQL = `
with claimed as (
  update deliveries set claim_token = ?, claimed_until = ?
  where id in (
    select id from deliveries
    where status = 'pending' and next_retry_at <= ? and (claimed_until is null or claimed_until <= ?)
    order by next_retry_at, id
    limit ?
    for update skip locked
  )
  returning id, webhook_id, change_id, message_id, event_type, attempts
)
select c.id, c.message_id, c.event_type, c.attempts, w.url, w.secret, w.deleted_at is not null as webhook_deleted,
  m.entity_type, m.entity_id, m.action, m.changed_fields, m.previous_data, m.new_data
from claimed c
join webhooks w on w.id = c.webhook_id
left join matched_changes m on m.id = c.change_id`;

/** The dispatcher's view of the deliveries table: lease, record, postpone. */
export class DeliveryStore {
  constructor(private readonly knex: Knex) {}

  async claimDue(now: Date, leaseUntil: Date, claimToken: string, limit: number): Promise<ClaimedDelivery[]> {
    const result = await this.knex.raw<{ rows: ClaimRow[] }>(CLAIM_SQL, [claimToken, leaseUntil, now, now, limit]);
    return result.rows.map((row) => ({
      id: row.id,
      claimToken,
      messageId: row.message_id,
      eventType: row.event_type,
      attempts: row.attempts,
      url: row.url,
      secret: row.secret,
      webhookDeleted: row.webhook_deleted,
      change: row.entity_type === null ? null : {
        entityType: row.entity_type,
        entityId: row.entity_id,
        action: row.action,
        changedFields: row.changed_fields,
        previous: row.previous_data,
        current: row.new_data,
      },
    }));
  }

  /** False when the lease was lost (expired and re-claimed) or the webhook was deleted meanwhile. */
  async recordAttempt(claimed: ClaimedDelivery, record: AttemptRecord): Promise<boolean> {
    const updated = await this.heldBy(claimed).update({
      status: record.status,
      attempts: record.attempts,
      last_attempt_at: record.lastAttemptAt,
      next_retry_at: record.nextRetryAt,
      response_code: record.responseCode,
      response_body: record.responseBody,
      error_message: record.errorMessage,
      delivered_at: record.deliveredAt,
      payload: record.payload,
      claim_token: null,
      claimed_until: null,
    });
    return updated === 1;
  }

  /** An open breaker: no attempt is counted, the delivery simply becomes due later. */
  async postpone(claimed: ClaimedDelivery, retryAt: Date): Promise<void> {
    await this.heldBy(claimed).update({ next_retry_at: retryAt, claim_token: null, claimed_until: null });
  }

  async fail(claimed: ClaimedDelivery, errorMessage: string): Promise<void> {
    await this.heldBy(claimed).update({ status: 'failed', next_retry_at: null, error_message: errorMessage, claim_token: null, claimed_until: null });
  }

  async countDue(now: Date): Promise<number> {
    const row = await this.knex('deliveries').where('status', 'pending').andWhere('next_retry_at', '<=', now).count({ count: '*' }).first();
    return Number(row?.count ?? 0);
  }

  private heldBy(claimed: ClaimedDelivery) {
    return this.knex('deliveries').where({ id: claimed.id, claim_token: claimed.claimToken, status: 'pending' });
  }
}
