import { endSession, refusedByServer, withPooledConnection, type Knex, type PooledConnection } from '@timetable/db';
import type { SecretCipher } from '../secrets/secret-cipher.js';
import { CLAIM_DUE_SQL, claimLockSql, END_LEASES_CTES, type ClaimServerTimeouts } from './claim-due-sql.js';
import { changeDataJson } from './delivery-body.js';

/** A delivery this dispatcher holds the lease of, with what it needs to build and send the body. */
export interface ClaimedDelivery {
  id: string;
  claimToken: string;
  /** When the lease runs out: an attempt starts only with time left to finish and be recorded before it. */
  leaseUntil: Date;
  messageId: string;
  eventType: string;
  attempts: number;
  url: string;
  /** `host:port` of the URL: the unit of the per-host limit and of the breaker. */
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

/** The limits of a claim's transaction (milliseconds): the server's (claimLockSql), and how long the client waits. */
export interface ClaimTimeouts extends ClaimServerTimeouts {
  /** How long the dispatcher waits for the answer to each of the claim's statements. */
  answerMs: number;
}

/**
 * A claim takes milliseconds (up to a tenth of a second on a large backlog), and waits for another replica's
 * claim no longer than that one takes; these limits are for a claim that went wrong. Without them a dispatcher
 * whose connection went silent waited until the kernel stopped retransmitting (about 15 minutes), and the
 * server kept the claim lock for the other replicas until its keepalive gave the session up (over two hours).
 * The server's idle limit is well below the client's wait, so a replica that queued for the lock behind a
 * claimer that is gone still gets it within its own wait; the statement limit below it too, so that a claim
 * too slow is cancelled by the server, which answers, rather than abandoned by the client while the server
 * works on holding the lock.
 */
export const CLAIM_TIMEOUTS: ClaimTimeouts = { idleMs: 5_000, statementMs: 20_000, unacknowledgedMs: 10_000, answerMs: 30_000 };

/** Decrypted secrets kept, keyed by webhook and ciphertext (a new secret is a new ciphertext). */
const SECRET_CACHE_SIZE = 1000;

/** The dispatcher's view of the deliveries table: lease, record, postpone, release. */
export class DeliveryStore {
  private readonly knex: Knex;
  private readonly cipher: SecretCipher;
  private readonly claimAnswerMs: number;
  private readonly claimLock: string;
  /** Decryption is per webhook, not per delivery: a claim holds many deliveries of few webhooks. */
  private readonly secrets = new Map<string, string>();

  constructor(deps: DeliveryStoreDeps) {
    this.knex = deps.knex;
    this.cipher = deps.cipher;
    const timeouts = deps.claimTimeouts ?? CLAIM_TIMEOUTS;
    this.claimAnswerMs = timeouts.answerMs;
    this.claimLock = claimLockSql(timeouts);
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
    const result = await this.inClaimTransaction(claim.sql, claim.bindings);
    // Deliveries of one change to several webhooks share one serialisation of its content.
    const changes = changesOf(result.rows);
    return result.rows.map((row) => ({
      id: row.id,
      claimToken: request.claimToken,
      leaseUntil: request.leaseUntil,
      messageId: row.message_id,
      eventType: row.event_type,
      attempts: row.attempts,
      url: row.url,
      host: row.target_host,
      developerId: row.developer_id,
      secret: row.secret === null ? null : this.decrypt(row.secret, row.webhook_id),
      webhookDeleted: row.webhook_deleted,
      data: row.has_change && row.change_id !== null ? changes.get(row.change_id)! : null,
    }));
  }

  /**
   * Runs the claim in its transaction in three round trips where knex's transactions take four: BEGIN goes
   * with the lock, as one simple query of two statements. A claim is made every few hundred deliveries, and
   * each round trip waits for an event loop busy with attempts; knex's transaction machinery cost the event
   * loop about 3 % of a dispatch besides. Each statement's answer is waited for at most `answerMs`.
   */
  private inClaimTransaction(sql: string, bindings: readonly unknown[]): Promise<{ rows: ClaimRow[] }> {
    return withPooledConnection(this.knex, async (connection) => {
      const timed = <Row>(text: string, values?: readonly unknown[]) => connection.query<Row>({ text, ...(values ? { values } : {}), query_timeout: this.claimAnswerMs });
      try {
        await timed(`begin; ${this.claimLock}`);
        const result = await timed<ClaimRow>(sql, bindings);
        await timed('commit');
        return result;
      } catch (error) {
        await this.abandonClaim(connection, error);
        throw error;
      }
    });
  }

  /**
   * A statement the server refused leaves its transaction aborted on a live connection: rolled back, the
   * connection serves on. Anything else, a statement that got no answer in time or a connection that broke,
   * leaves the session's state unknown (a rollback would wait behind the unanswered statement), and so does a
   * rollback that fails: the session is ended, and the server rolls the transaction back and frees the claim
   * lock as soon as it sees the session go. The pool drops the connection.
   */
  private async abandonClaim(connection: PooledConnection, error: unknown): Promise<void> {
    let failure = error;
    if (refusedByServer(error)) {
      try {
        await connection.query({ text: 'rollback', query_timeout: this.claimAnswerMs });
        return;
      } catch (rollbackError) {
        failure = rollbackError;
      }
    }
    await endSession(connection, `a claim failed: ${(failure as Error).message}`, this.claimAnswerMs);
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
   * holds to the host, in one statement), and so does every other unleased due delivery to that host, so
   * they are not claimed one by one only to be put back.
   */
  async postpone(held: HeldLease[], host: string, retryAt: Date, now: Date): Promise<void> {
    if (held.length > 0) {
      await this.knex.raw(POSTPONE_SQL, { retryAt, leases: leasesJson(held) });
    }
    await this.knex('deliveries')
      .where({ status: 'pending' })
      .where('next_retry_at', '<=', now)
      .where((query) => {
        query.whereNull('claimed_until').orWhere('claimed_until', '<=', now);
      })
      .whereIn('webhook_id', this.knex('webhooks').select('id').where({ target_host: host }))
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

/**
 * One outcome as a JSON object for RECORD_ATTEMPTS_SQL, written out by hand: JSON.stringify of the object
 * took 1.6 µs a row, this 0.9. Ids and tokens are UUIDs, the status one of three words and the times epoch
 * milliseconds (toISOString cost more than the rest of the row), none of which JSON escapes; the free texts
 * go through JSON.stringify. The payload, which is JSON already, is spliced in as it is rather than escaped
 * into a string and parsed twice.
 */
function attemptRowJson(lease: HeldLease, record: AttemptRecord): string {
  return `{"id":"${lease.id}","claim_token":"${lease.claimToken}","host":${JSON.stringify(lease.host)},"developer_id":"${lease.developerId}",` +
    `"status":"${record.status}","attempts":${record.attempts},"last_attempt_at":${record.lastAttemptAt.getTime()},` +
    `"next_retry_at":${record.nextRetryAt?.getTime() ?? null},"response_code":${record.responseCode},` +
    `"response_body":${jsonOrNull(record.responseBody)},"error_message":${jsonOrNull(record.errorMessage)},` +
    `"delivered_at":${record.deliveredAt?.getTime() ?? null},"payload":${record.payload}}`;
}

function jsonOrNull(text: string | null): string {
  return text === null ? 'null' : JSON.stringify(storableText(text));
}

/** Half of a surrogate pair with no other half: what cutting an answer at 1,000 UTF-16 units may leave. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A subscriber's answer or an error text as PostgreSQL takes it: it refuses a NUL character and half a
 * surrogate pair in text, and one such row would fail the whole batch, every time it is sent again (its
 * attempt never recorded, its delivery repeated for ever). NUL is dropped, half a pair becomes U+FFFD.
 */
function storableText(text: string): string {
  return text.replaceAll('\u0000', '').replace(LONE_SURROGATE, '\uFFFD');
}

function leasesJson(leases: HeldLease[]): string {
  return JSON.stringify(leases.map((lease) => ({ id: lease.id, claim_token: lease.claimToken, host: lease.host, developer_id: lease.developerId })));
}

/** The leases a statement ends, as the `ending` relation END_LEASES_CTES reads. */
const ENDING_LEASES = `
ending as (
  select * from json_to_recordset(:leases::json) as v(id uuid, claim_token uuid, host text, developer_id uuid)
)`;

/**
 * Only where the lease is still held: a lost lease's outcome is never written over another's attempt. It
 * returns the outcomes it did not write. A `json` column of json_to_recordset keeps the payload's text exactly
 * as sent (it is not jsonb).
 */
const RECORD_ATTEMPTS_SQL = `
with ending as (
  select * from json_to_recordset(:rows::json) as v(
    id uuid, claim_token uuid, host text, developer_id uuid, status text, attempts int, last_attempt_at float8,
    next_retry_at float8, response_code int, response_body text, error_message text, delivered_at float8, payload json)
), ${END_LEASES_CTES},
recorded as (
  update deliveries d set
    status = v.status, attempts = v.attempts, last_attempt_at = to_timestamp(v.last_attempt_at / 1000.0),
    next_retry_at = to_timestamp(v.next_retry_at / 1000.0), response_code = v.response_code,
    response_body = v.response_body, error_message = v.error_message, delivered_at = to_timestamp(v.delivered_at / 1000.0),
    payload = v.payload, claim_token = null, claimed_until = null, claimed_by = null
  from ending v
  where d.id = v.id and d.claim_token = v.claim_token and d.status = 'pending'
  returning d.id
)
select id from ending where id not in (select id from recorded)`;

const POSTPONE_SQL = `
with ${ENDING_LEASES}, ${END_LEASES_CTES}
update deliveries d set next_retry_at = :retryAt, claim_token = null, claimed_until = null, claimed_by = null
from ending v
where d.id = v.id and d.claim_token = v.claim_token and d.status = 'pending'`;

const RELEASE_SQL = `
with ${ENDING_LEASES}, ${END_LEASES_CTES}
update deliveries d set claim_token = null, claimed_until = null, claimed_by = null
from ending v
where d.id = v.id and d.claim_token = v.claim_token and d.status = 'pending'`;

const FAIL_SQL = `
with ${ENDING_LEASES}, ${END_LEASES_CTES}
update deliveries d set status = 'failed', next_retry_at = null, error_message = :errorMessage,
  claim_token = null, claimed_until = null, claimed_by = null
from ending v
where d.id = v.id and d.claim_token = v.claim_token and d.status = 'pending'`;
