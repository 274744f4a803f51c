/**
 * One statement that leases the due deliveries this dispatcher may hold now, fairly:
 * - the load is read from the leases themselves (pending deliveries whose lease has not run out), so it
 *   counts the attempts of every dispatcher replica, not only this one's; claims run one at a time (see
 *   CLAIM_LOCK_SQL), so two replicas cannot both fill the same free slot;
 * - per subscriber host, a cap on the leases: the host limit while any other dispatcher holds a lease to
 *   that host (a lease without `claimed_by` counts as another's), else the larger claim-ahead cap. A
 *   dispatcher that holds more leases to a host than the host limit is then the only holder, and it starts
 *   at most the host limit of them at once; where several hold leases to a host, their leases together
 *   stay within the host limit. Either way no host has more than the limit in flight;
 * - per webhook, its oldest due deliveries (`FOR UPDATE SKIP LOCKED`, so a row is never leased twice): the
 *   batch shared among all webhooks, at least the host limit and at most the claim-ahead cap, so the
 *   candidates a claim looks at (and locks) stay near the batch size however many webhooks there are;
 * - across developers round-robin: a developer's n-th delivery, counting the leases they already hold,
 *   comes after every other developer's (n-1)-th, so one developer's backlog cannot hold up another's.
 * A change matched to several webhooks is claimed as several deliveries; its content (the JSON columns
 * above all, as the text they were stored as, so the dispatcher splices them into bodies unparsed) comes
 * with one of them only, flagged by `has_change` on every one, so it is sent once per claim rather than
 * once per delivery.
 * - hosts the dispatcher names as slow (every slot taken by attempts that have not ended for a while) get
 *   no leases ahead: the host limit is their cap, as it is for a host another dispatcher holds leases to.
 * Parameters: now (leases), dispatcher id, claim-ahead cap, host limit, claim-ahead cap, host limit, batch
 * size (per webhook), now, now (due), slow hosts (a JSON array), host limit, claim-ahead cap (a host without leases), batch
 * size, claim token, lease end, dispatcher id.
 */
export const CLAIM_DUE_SQL = `
with leased as (
  select w.target_host, w.developer_id, d.claimed_by
  from deliveries d
  join webhooks w on w.id = d.webhook_id
  where d.status = 'pending' and d.claimed_until > ?
),
host_load as (
  select target_host as host, count(*)::int as leased,
    count(*) filter (where claimed_by is distinct from ?::uuid)::int as leased_by_others
  from leased group by target_host
),
host_room as (
  select host, leased, case when leased_by_others = 0 then ?::int else ?::int end as cap from host_load
),
per_webhook as (
  select least(?::int, greatest(?::int, ceil(?::numeric / greatest(count(*), 1))::int)) as n from webhooks
),
developer_load as (
  select developer_id, count(*)::int as in_flight from leased group by developer_id
),
candidates as (
  select d.id, w.developer_id, w.target_host, d.next_retry_at,
    row_number() over (partition by w.id order by d.next_retry_at, d.id) as webhook_rank
  from webhooks w
  cross join lateral (
    select id, next_retry_at from deliveries
    where webhook_id = w.id and status = 'pending' and next_retry_at <= ? and (claimed_until is null or claimed_until <= ?)
    order by next_retry_at, id
    limit (select n from per_webhook)
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
  where r.host_rank + coalesce(h.leased, 0) <= case when r.target_host in (select json_array_elements_text(?::json)) then ?::int else coalesce(h.cap, ?::int) end
  order by r.developer_rank + coalesce(l.in_flight, 0), r.next_retry_at, r.id
  limit ?
),
claimed as (
  update deliveries set claim_token = ?, claimed_until = ?, claimed_by = ?
  where id in (select id from chosen)
  returning id, webhook_id, change_id, message_id, event_type, attempts
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
 * Taken in the claim's transaction: claims of all replicas run one after another, each seeing the leases
 * the one before committed. A claim takes milliseconds, so replicas barely wait for each other.
 * It also turns off PostgreSQL's JIT compilation for the claim: the planner cannot know the per-webhook
 * limit, overestimates the candidates by two orders of magnitude once the table has statistics, and the
 * estimate crosses `jit_above_cost`; compiling the statement then took about 70 ms, four times the claim's
 * own work (bench/README.md, "Webhook dispatch").
 */
export const CLAIM_LOCK_SQL = "select pg_advisory_xact_lock(hashtext('timetable.webhooks.claim')), set_config('jit', 'off', true)";
