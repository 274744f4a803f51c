import type { Knex } from '@timetable/db';
import { DecryptedSecrets } from '../secrets/decrypted-secrets.js';
import type { SecretCipher } from '../secrets/secret-cipher.js';
import { CLAIM_DUE_SQL } from './claim-due-sql.js';
import { claimedDeliveries, type ClaimRow } from './claim-rows.js';
import { CLAIM_TIMEOUTS, ClaimTransaction, type ClaimTimeouts } from './claim-transaction.js';
import type { AttemptRecord, ClaimedDelivery, ClaimRequest, HeldLease, Postponement } from './delivery-lease.js';
import { attemptRowJson, FAIL_SQL, leasesJson, POSTPONE_SQL, RECORD_ATTEMPTS_SQL, RELEASE_SQL } from './end-leases-sql.js';

export type { AttemptRecord, ClaimedDelivery, ClaimRequest, HeldLease, Postponement } from './delivery-lease.js';

export interface DeliveryStoreDeps {
  /** On the `webhooks` schema. */
  knex: Knex;
  /** Decrypts the secret each claimed delivery is signed with. */
  cipher: SecretCipher;
  /** CLAIM_TIMEOUTS unless given (tests give less). */
  claimTimeouts?: ClaimTimeouts;
}

/** The dispatcher's view of the deliveries table: lease, record, postpone, release. */
export class DeliveryStore {
  private readonly knex: Knex;
  private readonly claims: ClaimTransaction;
  /** Decryption is per webhook, not per delivery: a claim holds many deliveries of few webhooks. */
  private readonly secrets: DecryptedSecrets;

  constructor(deps: DeliveryStoreDeps) {
    this.knex = deps.knex;
    this.secrets = new DecryptedSecrets(deps.cipher);
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
    return claimedDeliveries(result.rows, request, (row) => (row.secret === null ? null : this.secrets.decrypt(row.secret, row.webhook_id)));
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
}
