/**
 * One statement that leases the due deliveries this dispatcher may hold now, fairly:
 * - the load is read from `lease_counts` (how many leases each claim holds per host and developer, until
 *   its lease end), so it counts the attempts of every dispatcher replica, not only this one's; claims run
 *   one at a time (see claimLockSql), so two replicas cannot both fill the same free slot. The claim adds
 *   its own counts, and clears the rows of claims whose leases all ended, or ran out a minute ago (so a
 *   replica whose clock runs ahead does not clear another's live counts; skipping any a holder is updating);
 * - per subscriber host, a cap on the leases: the host limit while any other dispatcher holds a lease to
 *   that host (a lease without `claimed_by` counts as another's), else the larger cap of leases ahead. A
 *   dispatcher that holds more leases to a host than the host limit is then the only holder, and it starts
 *   at most the host limit of them at once; where several hold leases to a host, their leases together
 *   stay within the host limit. Either way no host has more than the limit in flight;
 * - per webhook, its oldest due deliveries (`FOR UPDATE SKIP LOCKED`, so a row is never leased twice): the
 *   batch shared among the webhooks that have a delivery due and a host below its cap, at least the host
 *   limit and at most the cap of leases ahead, so the candidates a claim looks at (and locks) stay near the
 *   batch size however many webhooks there are. Webhooks with nothing due (idle, deleted) do not count,
 *   found by one index probe each (which reads past the webhook's leased due rows; ordered as the index
 *   is, so that the planner takes it: unordered, it chose a sequential scan, expecting a due row at once, which
 *   first read past the other webhooks' rows and the leases held: 4 of a 9 ms claim behind a backlog): counted, hundreds of
 *   them cut one subscriber's backlog to a host limit's worth per claim. Nor do webhooks of hosts held to
 *   the host limit, because another dispatcher holds leases to them or they get no leases ahead (below):
 *   they need no more than the host limit's worth, which is what they look at;
 * - across developers round-robin: a developer's n-th delivery, counting the leases they already hold,
 *   comes after every other developer's (n-1)-th, so one developer's backlog cannot hold up another's;
 * - no leases ahead (the host limit is the cap, as for a host another dispatcher holds leases to) for the
 *   hosts the dispatcher names as slow (attempts in flight of which none has ended for a while), nor, when
 *   it names the hosts known to answer, for any host it does not name there.
 * The chosen rows are updated through their ids as an array, a probe of the primary key each: `id in (chosen)`
 * let the planner read the whole table and hash it against the chosen ids whenever it guessed that cheaper
 * (1 ms of a 9 ms claim on 16,000 rows). `statement-plans.int.test.ts` checks that neither scan comes back.
 * A change matched to several webhooks is claimed as several deliveries; its content (the JSON columns
 * above all, as the text they were stored as, so the dispatcher splices them into bodies unparsed) comes
 * with one of them only, flagged by `has_change` on every one, so it is sent once per claim rather than
 * once per delivery.
 * Named bindings: now, claimedBy, soleCap (cap of a host only this dispatcher holds leases to), hostLimit,
 * batch (leases at most, and the share per webhook), slowHosts (a JSON array), answeringHosts (a JSON array, or
 * null when every host may be leased ahead), claimToken, leaseUntil.
 * knex reads `:name::type` as the binding `name` and a cast; so no binding here may be named like a type.
 */
/**
 * Whether a host gets no leases ahead: named slow, or not named among the hosts known to answer (when they
 * are named). Its cap is then the host limit, so a host at it is left out of the candidates, unscanned.
 * It reads the names from CTEs that bind each array once: they may name a thousand hosts each, and this
 * test appears in several places of the statement.
 */
const noLeasesAhead = (host: string) =>
  `(${host} in (select host from slow_hosts) or ((select answering is not null from host_names) and ${host} not in (select host from answering_hosts)))`;

/** A delivery of the webhook in scope whose attempt is due and that no live lease holds. */
const DUE_AND_FREE = "webhook_id = w.id and status = 'pending' and next_retry_at <= :now and (claimed_until is null or claimed_until <= :now)";

export const CLAIM_DUE_SQL = `
with host_names as (
  select :slowHosts::json as slow, :answeringHosts::json as answering
),
slow_hosts as (select json_array_elements_text(slow) as host from host_names),
answering_hosts as (select json_array_elements_text(answering) as host from host_names),
leased as (
  select target_host, developer_id, claimed_by, leased from lease_counts
  where claimed_until > :now and leased > 0
),
host_load as (
  select target_host as host, sum(leased)::int as leased,
    coalesce(sum(leased) filter (where claimed_by is distinct from :claimedBy::uuid), 0)::int as leased_by_others
  from leased group by target_host
),
host_room as (
  select host, leased, ahead, case when ahead then :soleCap::int else :hostLimit::int end as cap
  from (select host, leased, leased_by_others = 0 and not ${noLeasesAhead('host')} as ahead from host_load) l
),
per_webhook as (
  select least(:soleCap::int, greatest(:hostLimit::int, ceil(:batch::numeric / greatest(count(*), 1))::int)) as n
  from webhooks w
  cross join lateral (
    select 1 from deliveries
    where ${DUE_AND_FREE}
    order by next_retry_at, id
    limit 1
  ) due
  where w.target_host not in (select host from host_room where leased >= cap or not ahead) and not ${noLeasesAhead('w.target_host')}
),
developer_load as (
  select developer_id, sum(leased)::int as in_flight from leased group by developer_id
),
candidates as (
  select d.id, w.developer_id, w.target_host, d.next_retry_at,
    row_number() over (partition by w.id order by d.next_retry_at, d.id) as webhook_rank
  from webhooks w
  cross join lateral (
    select id, next_retry_at from deliveries
    where ${DUE_AND_FREE}
    order by next_retry_at, id
    limit (case when ${noLeasesAhead('w.target_host')} or w.target_host in (select host from host_room where not ahead) then :hostLimit::int
      else (select n from per_webhook) end)
    for update skip locked
  ) d
  where w.target_host not in (select host from host_room where leased >= cap)
),
ranked as (
  select c.*,
    row_number() over (partition by c.target_host order by c.webhook_rank, c.next_retry_at, c.id) as host_rank,
    row_number() over (partition by c.developer_id order by c.webhook_rank, c.next_retry_at, c.id) as developer_rank
  from candidates c
),
chosen as (
  select r.id from ranked r
  left join host_room h on h.host = r.target_host
  left join developer_load l on l.developer_id = r.developer_id
  where r.host_rank + coalesce(h.leased, 0) <= coalesce(h.cap, case when ${noLeasesAhead('r.target_host')} then :hostLimit::int else :soleCap::int end)
  order by r.developer_rank + coalesce(l.in_flight, 0), r.next_retry_at, r.id
  limit :batch
),
claimed as (
  update deliveries set claim_token = :claimToken, claimed_until = :leaseUntil, claimed_by = :claimedBy
  where id = any(array(select id from chosen))
  returning id, webhook_id, change_id, message_id, event_type, attempts
),
counted as (
  insert into lease_counts (claim_token, target_host, developer_id, claimed_by, leased, claimed_until)
  select :claimToken::uuid, w.target_host, w.developer_id, :claimedBy::uuid, count(*), :leaseUntil::timestamptz
  from claimed join webhooks w on w.id = claimed.webhook_id
  group by w.target_host, w.developer_id
),
cleared as (
  delete from lease_counts where ctid in (
    select ctid from lease_counts where claimed_until <= :now::timestamptz - interval '1 minute' or leased <= 0 for update skip locked
  )
)
select c.id, c.webhook_id, c.change_id, c.message_id, c.event_type, c.attempts, w.url, w.secret, w.developer_id, w.target_host,
  w.deleted_at is not null as webhook_deleted, m.id is not null as has_change,
  case when c.first_of_change then m.entity_type end as entity_type,
  case when c.first_of_change then m.entity_id end as entity_id,
  case when c.first_of_change then m.action end as action,
  case when c.first_of_change then m.changed_fields::text end as changed_fields,
  case when c.first_of_change then m.previous_data::text end as previous_data,
  case when c.first_of_change then m.new_data::text end as new_data
from (
  select claimed.*, row_number() over (partition by change_id order by id) = 1 as first_of_change from claimed
) c
join webhooks w on w.id = c.webhook_id
left join matched_changes m on m.id = c.change_id`;

/**
 * Ends leases in `lease_counts`: CTEs for the statements that end leases, after a CTE `ending` with one row
 * (claim_token, host, developer_id) per lease ended. Counted whether or not the delivery's row still names
 * the lease: its holder stops holding it either way (a lease that ran out is no longer counted anyway).
 * The counters are locked in one order, so statements ending leases at the same time never deadlock.
 */
export const END_LEASES_CTES = `
ended_counts as (
  select claim_token, host, developer_id, count(*)::int as n from ending group by claim_token, host, developer_id
),
counters as (
  select c.claim_token, c.target_host, c.developer_id, e.n
  from lease_counts c
  join ended_counts e on e.claim_token = c.claim_token and e.host = c.target_host and e.developer_id = c.developer_id
  order by c.claim_token, c.target_host, c.developer_id
  for update of c
),
uncounted as (
  update lease_counts c set leased = c.leased - k.n from counters k
  where c.claim_token = k.claim_token and c.target_host = k.target_host and c.developer_id = k.developer_id
)`;

/** How long the server gives a claim's transaction before it gives up on it (milliseconds; see claimLockSql). */
export interface ClaimServerTimeouts {
  /** The transaction idle between its statements. */
  idleMs: number;
  /** Each later statement running (the claim itself, the commit). */
  statementMs: number;
  /** What the server sent going unacknowledged by the client's machine. */
  unacknowledgedMs: number;
}

/**
 * Taken in the claim's transaction: claims of all replicas run one after another, each seeing the leases
 * the one before committed. A claim takes milliseconds, so replicas barely wait for each other.
 * It also turns off PostgreSQL's JIT compilation for the claim: the planner cannot know the per-webhook
 * limit, overestimates the candidates by two orders of magnitude once the table has statistics, and the
 * estimate crosses `jit_above_cost`; compiling the statement then took about 70 ms, four times the claim's
 * own work.
 * And it bounds how long the transaction can hold the lock, all local to it (the pooled connection is back to
 * the server's settings after it): the server ends the session should the transaction sit idle for `idleMs`
 * (a claimer whose network went silent between the statements, or whose process stopped), cancels a later
 * statement running past `statementMs` (it answers with an error, and the claimer rolls back), and drops the
 * connection should what it sends go unacknowledged for `unacknowledgedMs` (a claimer gone while the server
 * writes it the claim's rows). Otherwise a claimer gone mid-claim would keep the lock, and every replica's
 * claims out, until the server's keepalive gave its connection up (over two hours by default).
 */
export function claimLockSql({ idleMs, statementMs, unacknowledgedMs }: ClaimServerTimeouts): string {
  for (const [name, value] of Object.entries({ idleMs, statementMs, unacknowledgedMs })) {
    if (!(Number.isInteger(value) && value > 0)) throw new Error(`the claim's ${name} must be a positive whole number of milliseconds, got ${value}`);
  }
  return (
    "select pg_advisory_xact_lock(hashtext('timetable.webhooks.claim')), set_config('jit', 'off', true), " +
    `set_config('idle_in_transaction_session_timeout', '${idleMs}', true), set_config('statement_timeout', '${statementMs}', true), ` +
    `set_config('tcp_user_timeout', '${unacknowledgedMs}', true)`
  );
}
