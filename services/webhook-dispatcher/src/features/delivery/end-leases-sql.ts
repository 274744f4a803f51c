import { END_LEASES_CTES } from './claim-due-sql.js';
import type { AttemptRecord, HeldLease } from './delivery-lease.js';
import { storableText } from './storable-text.js';

/**
 * The statements that end leases (record an outcome, release, postpone, fail) and the JSON rows they read.
 * Each ends only leases still held (same claim token, still pending) and takes them off `lease_counts`.
 */

/**
 * One outcome as a JSON object for RECORD_ATTEMPTS_SQL, written out by hand: JSON.stringify of the object
 * took 1.6 µs a row, this 0.9. Ids and tokens are UUIDs, the status one of three words and the times epoch
 * milliseconds (toISOString cost more than the rest of the row), none of which JSON escapes; the free texts
 * go through JSON.stringify. The payload, which is JSON already, is spliced in as it is rather than escaped
 * into a string and parsed twice.
 */
export function attemptRowJson(lease: HeldLease, record: AttemptRecord): string {
  return `{"id":"${lease.id}","claim_token":"${lease.claimToken}","host":${JSON.stringify(lease.host)},"developer_id":"${lease.developerId}",` +
    `"status":"${record.status}","attempts":${record.attempts},"last_attempt_at":${record.lastAttemptAt.getTime()},` +
    `"next_retry_at":${record.nextRetryAt?.getTime() ?? null},"response_code":${record.responseCode},` +
    `"response_body":${jsonOrNull(record.responseBody)},"error_message":${jsonOrNull(record.errorMessage)},` +
    `"delivered_at":${record.deliveredAt?.getTime() ?? null},"payload":${record.payload}}`;
}

function jsonOrNull(text: string | null): string {
  return text === null ? 'null' : JSON.stringify(storableText(text));
}

export function leasesJson(leases: HeldLease[]): string {
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
export const RECORD_ATTEMPTS_SQL = `
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

export const POSTPONE_SQL = `
with ${ENDING_LEASES}, ${END_LEASES_CTES}
update deliveries d set next_retry_at = :retryAt, claim_token = null, claimed_until = null, claimed_by = null
from ending v
where d.id = v.id and d.claim_token = v.claim_token and d.status = 'pending'`;

export const RELEASE_SQL = `
with ${ENDING_LEASES}, ${END_LEASES_CTES}
update deliveries d set claim_token = null, claimed_until = null, claimed_by = null
from ending v
where d.id = v.id and d.claim_token = v.claim_token and d.status = 'pending'`;

export const FAIL_SQL = `
with ${ENDING_LEASES}, ${END_LEASES_CTES}
update deliveries d set status = 'failed', next_retry_at = null, error_message = :errorMessage,
  claim_token = null, claimed_until = null, claimed_by = null
from ending v
where d.id = v.id and d.claim_token = v.claim_token and d.status = 'pending'`;
