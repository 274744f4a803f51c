import type { Knex } from '@timetable/db';
import type { SecretCipher } from '../secrets/secret-cipher.js';
import { CLAIM_DUE_SQL } from './claim-due-sql.js';
import { CLAIM_TIMEOUTS, ClaimTransaction, type ClaimTimeouts } from './claim-transaction.js';
import { changeDataJson } from './delivery-body.js';
import { attemptRowJson, FAIL_SQL, leasesJson, POSTPONE_SQL, RECORD_ATTEMPTS_SQL, RELEASE_SQL } from './end-leases-sql.js';

/** A delivery this dispatcher holds the lease of, with what it needs to build and send the body. */
export interface ClaimedDelivery {
  id: string;
  claimToken: string;
  /** When the lease runs out: an attempt starts only with time left to finish and be recorded before it. */
  leaseUntil: Date;
  messageId: string;
  eventType: string;
  attempts: number;
  /** The webhook: the endpoint whose breaker the attempt goes through. */
  webhookId: string;
  url: string;
  /** `host:port` of the URL: the unit of the per-host limit. */
  host: string;
  developerId: string;
  secret: string | null;
  webhookDeleted: boolean;
  /** The body's `data` as JSON (changeDataJson); null for a test delivery. */
  data: string | null;
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
  /** The raw JSON body sent, stored verbatim (spliced into the batch statement as JSON, so it must be JSON). */
  payload: string;
}

export interface ClaimRequest {
  now: Date;
  leaseUntil: Date;
  claimToken: string;
  /** How many deliveries to lease at most. */
  limit: number;
  /** DELIVERY_HOST_CONCURRENCY, across every dispatcher replica. */
  hostLimit: number;
  /**
   * The dispatcher instance claiming. With it, leases to a host that no other dispatcher holds a lease to
   * may reach `hostAheadLimit`, more than may be in flight (the dispatcher queues them); without it, or
   * while another dispatcher holds a lease to the host, they stay within `hostLimit`.
   */
  claimedBy?: string;
  /** Leases one dispatcher may hold to a host it alone holds leases to; default `hostLimit`. */
  hostAheadLimit?: number;
  /** Hosts that get no leases ahead, whoever holds leases to them (the dispatcher's attempts to them are slow). */
  slowHosts?: readonly string[];
  /**
   * Hosts known to answer. Given, only these get leases ahead: any other host is held to `hostLimit` until
   * it has answered, so one that never does holds no queue while the dispatcher finds out. Without it, any
   * host may be leased ahead.
   */
  answeringHosts?: readonly string[];
}

/** An open breaker's postponement: the endpoint (webhook) and when its breaker half-opens. */
export interface Postponement {
  webhookId: string;
  retryAt: Date;
  now: Date;
}

/**
 * What ending a lease needs: the delivery and its lease, checked when the outcome is written, and the host
 * and developer whose lease count it leaves.
 */
export type HeldLease = Pick<ClaimedDelivery, 'id' | 'claimToken' | 'host' | 'developerId'>;

interface ClaimRow {
  id: string;
  webhook_id: string;
  change_id: string | null;
  message_id: string;
  event_type: string;
  attempts: number;
  url: string;
  secret: string | null;
  developer_id: string;
  target_host: string;
  webhook_deleted: boolean;
  /** False for a test delivery, which has no change. */
  has_change: boolean;
  /** The change's content (its JSON columns as text): on one of the claim's rows per change only, null on the others. */
  entity_type: string | null;
  entity_id: string | null;
  action: string | null;
  changed_fields: string | null;
  previous_data: string | null;
  new_data: string | null;
}

export interface DeliveryStoreDeps {
  /** On the `webhooks` schema. */
  knex: Knex;
  /** Decrypts the secret each claimed delivery is signed with. */
  cipher: SecretCipher;
  /** CLAIM_TIMEOUTS unless given (tests give less). */
  claimTimeouts?: ClaimTimeouts;
}

/** Decrypted secrets kept, keyed by webhook and ciphertext (a new secret is a new ciphertext). */
const SECRET_CACHE_SIZE = 1000;

/** The dispatcher's view of the deliveries table: lease, record, postpone, release. */
export class DeliveryStore {
  private readonly knex: Knex;
  private readonly cipher: SecretCipher;
  private readonly claims: ClaimTransaction;
  /** Decryption is per webhook, not per delivery: a claim holds many deliveries of few webhooks. */
  private readonly secrets = new Map<string, string>();

  constructor(deps: DeliveryStoreDeps) {
    this.knex = deps.knex;
    this.cipher = deps.cipher;
    this.claims = new ClaimTransaction(deps.knex, deps.claimTimeouts ?? CLAIM_TIMEOUTS);
  }

  async claimDue(request: ClaimRequest): Promise<ClaimedDelivery[]> {
    const { now, hostLimit } = request;
    const ahead = Math.max(request.hostAheadLimit ?? hostLimit, hostLimit);
    const claimedBy = request.claimedBy ?? null;
    // Without a dispatcher id every lease counts as another's, so the cap is the host limit.
    const soleCap = claimedBy === null ? hostLimit : ahead;
    const claim = this.knex.raw(CLAIM_DUE_SQL, {
      now, claimedBy, soleCap, hostLimit, batch: request.limit, slowHosts: JSON.stringify(request.slowHosts ?? []),
      answeringHosts: request.answeringHosts === undefined ? null : JSON.stringify(request.answeringHosts),
      claimToken: request.claimToken, leaseUntil: request.leaseUntil,
    }).toSQL().toNative();
    const result = await this.claims.run<ClaimRow>(claim.sql, claim.bindings);
    // Deliveries of one change to several webhooks share one serialisation of its content.
    const changes = changesOf(result.rows);
    return result.rows.map((row) => ({
      id: row.id,
      claimToken: request.claimToken,
      leaseUntil: request.leaseUntil,
      messageId: row.message_id,
      eventType: row.event_type,
      attempts: row.attempts,
      webhookId: row.webhook_id,
      url: row.url,
      host: row.target_host,
      developerId: row.developer_id,
      secret: row.secret === null ? null : this.decrypt(row.secret, row.webhook_id),
      webhookDeleted: row.webhook_deleted,
      data: row.has_change && row.change_id !== null ? changes.get(row.change_id)! : null,
    }));
  }

  /**
   * Records many attempts in one statement, each only where its lease is still held (same claim token,
   * still pending). Returns the ids whose outcome was discarded, usually none: the delivery had lost its
   * lease (expired and claimed again) or was no longer pending. Only those come back, so a batch costs the
   * dispatcher no row to read per outcome.
   */
  async recordAttempts(attempts: { lease: HeldLease; record: AttemptRecord }[]): Promise<string[]> {
    if (attempts.length === 0) return [];
    const rows = attempts.map(({ lease, record }) => attemptRowJson(lease, record));
    const result = await this.knex.raw<{ rows: { id: string }[] }>(RECORD_ATTEMPTS_SQL, { rows: `[${rows.join(',')}]` });
    return result.rows.map((row) => row.id);
  }

  /** Gives many leases back untouched (shutdown, or too little lease left to start): due again at once. */
  async releaseAll(leases: HeldLease[]): Promise<void> {
    if (leases.length === 0) return;
    await this.knex.raw(RELEASE_SQL, { leases: leasesJson(leases) });
  }

  /**
   * An open breaker: no attempt is counted, the deliveries simply become due later (those this dispatcher
   * holds to the endpoint, in one statement), and so does every other unleased due delivery of that webhook,
   * so they are not claimed one by one only to be put back.
   */
  async postpone(held: HeldLease[], { webhookId, retryAt, now }: Postponement): Promise<void> {
    if (held.length > 0) {
      await this.knex.raw(POSTPONE_SQL, { retryAt, leases: leasesJson(held) });
    }
    await this.knex('deliveries')
      .where({ webhook_id: webhookId, status: 'pending' })
      .where('next_retry_at', '<=', now)
      .where((query) => {
        query.whereNull('claimed_until').orWhere('claimed_until', '<=', now);
      })
      .update({ next_retry_at: retryAt });
  }

  async fail(claimed: HeldLease, errorMessage: string): Promise<void> {
    await this.knex.raw(FAIL_SQL, { errorMessage, leases: leasesJson([claimed]) });
  }

  async countDue(now: Date): Promise<number> {
    const row = await this.knex('deliveries').where('status', 'pending').andWhere('next_retry_at', '<=', now).count({ count: '*' }).first();
    return Number(row?.count ?? 0);
  }

  private decrypt(stored: string, webhookId: string): string {
    const key = `${webhookId}:${stored}`;
    let secret = this.secrets.get(key);
    if (secret === undefined) {
      secret = this.cipher.decrypt(stored, webhookId);
      if (this.secrets.size >= SECRET_CACHE_SIZE) this.secrets.clear();
      this.secrets.set(key, secret);
    }
    return secret;
  }
}

/** The `data` JSON of each change in a claim, from the one row per change that carries its content. */
function changesOf(rows: ClaimRow[]): Map<string, string> {
  const changes = new Map<string, string>();
  for (const row of rows) {
    if (row.change_id === null || row.entity_type === null) continue;
    changes.set(
      row.change_id,
      changeDataJson({
        entityType: row.entity_type,
        entityId: row.entity_id!,
        action: row.action!,
        changedFieldsJson: row.changed_fields!,
        previousJson: row.previous_data,
        currentJson: row.new_data,
      }),
    );
  }
  return changes;
}
