import type { Knex } from '@timetable/db';
import type { SecretCipher } from '../secrets/secret-cipher.js';
import { CLAIM_DUE_SQL, CLAIM_LOCK_SQL } from './claim-due-sql.js';
import type { ChangeContent } from './delivery-body.js';

/** A delivery this dispatcher holds the lease of, with what it needs to build and send the body. */
export interface ClaimedDelivery {
  id: string;
  claimToken: string;
  messageId: string;
  eventType: string;
  attempts: number;
  url: string;
  /** `host:port` of the URL: the unit of the per-host limit and of the breaker. */
  host: string;
  developerId: string;
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

export interface ClaimRequest {
  now: Date;
  leaseUntil: Date;
  claimToken: string;
  /** How many attempts may start now. */
  limit: number;
  /** DELIVERY_HOST_CONCURRENCY, across every dispatcher replica. */
  hostLimit: number;
}

interface ClaimRow {
  id: string;
  webhook_id: string;
  message_id: string;
  event_type: string;
  attempts: number;
  url: string;
  secret: string | null;
  developer_id: string;
  target_host: string;
  webhook_deleted: boolean;
  entity_type: string | null;
  entity_id: string;
  action: string;
  changed_fields: string[];
  previous_data: Record<string, unknown> | null;
  new_data: Record<string, unknown> | null;
}

export interface DeliveryStoreDeps {
  /** On the `webhooks` schema. */
  knex: Knex;
  /** Decrypts the secret each claimed delivery is signed with. */
  cipher: SecretCipher;
}

/** The dispatcher's view of the deliveries table: lease, record, postpone, release. */
export class DeliveryStore {
  private readonly knex: Knex;
  private readonly cipher: SecretCipher;

  constructor(deps: DeliveryStoreDeps) {
    this.knex = deps.knex;
    this.cipher = deps.cipher;
  }

  async claimDue(request: ClaimRequest): Promise<ClaimedDelivery[]> {
    const { now, hostLimit } = request;
    const result = await this.knex.transaction(async (trx) => {
      await trx.raw(CLAIM_LOCK_SQL);
      return trx.raw<{ rows: ClaimRow[] }>(CLAIM_DUE_SQL, [
        now, now, now, hostLimit, hostLimit, hostLimit, request.limit, request.claimToken, request.leaseUntil,
      ]);
    });
    return result.rows.map((row) => ({
      id: row.id,
      claimToken: request.claimToken,
      messageId: row.message_id,
      eventType: row.event_type,
      attempts: row.attempts,
      url: row.url,
      host: row.target_host,
      developerId: row.developer_id,
      secret: row.secret === null ? null : this.cipher.decrypt(row.secret, row.webhook_id),
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

  /**
   * An open breaker: no attempt is counted, the delivery simply becomes due later, and so does every
   * other unleased due delivery to that host, so they are not claimed one by one only to be put back.
   */
  async postpone(claimed: ClaimedDelivery, retryAt: Date, now: Date): Promise<void> {
    await this.heldBy(claimed).update({ next_retry_at: retryAt, claim_token: null, claimed_until: null });
    await this.knex('deliveries')
      .where({ status: 'pending' })
      .where('next_retry_at', '<=', now)
      .where((query) => {
        query.whereNull('claimed_until').orWhere('claimed_until', '<=', now);
      })
      .whereIn('webhook_id', this.knex('webhooks').select('id').where({ target_host: claimed.host }))
      .update({ next_retry_at: retryAt });
  }

  /** Gives the lease back untouched (shutdown): due again at once, for this or another dispatcher. */
  async release(claimed: ClaimedDelivery): Promise<void> {
    await this.heldBy(claimed).update({ claim_token: null, claimed_until: null });
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
