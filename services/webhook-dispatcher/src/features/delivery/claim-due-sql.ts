/**
 * One statement that leases the due deliveries that can start now, fairly:
 * - per webhook, its oldest due deliveries, as many as one host may take (`FOR UPDATE SKIP LOCKED`, so
 *   replicas claim disjoint rows and a row is never leased twice);
 * - per subscriber host, no more than its free slots (the limit minus this dispatcher's attempts in flight
 *   to it), so a slow host cannot take every slot;
 * - across developers round-robin: a developer's n-th delivery, counting the attempts already in flight
 *   for them, comes after every other developer's (n-1)-th, so one developer's backlog cannot hold up another's.
 * Parameters: host load (json object host -> in flight), developer load (json object id -> in flight),
 * now, now, per-webhook limit, host limit, host limit, batch size, claim token, lease end.
 */
export const CLAIM_DUE_SQL = `
with host_load as (
  select key as host, value::int as in_flight from json_each_text(cast(? as json))
),
developer_load as (
  select key as developer_id, value::int as in_flight from json_each_text(cast(? as json))
),
candidates as (
  select d.id, w.developer_id, w.target_host, d.next_retry_at,
    row_number() over (partition by w.id order by d.next_retry_at, d.id) as webhook_rank
  from webhooks w
  cross join lateral (
    select id, next_retry_at from deliveries
    where webhook_id = w.id and status = 'pending' and next_retry_at <= ? and (claimed_until is null or claimed_until <= ?)
    order by next_retry_at, id
    limit ?
    for update skip locked
  ) d
  where w.target_host not in (select host from host_load where in_flight >= ?)
),
ranked as (
  select c.*,
    row_number() over (partition by c.target_host order by c.webhook_rank, c.next_retry_at, c.id) as host_rank,
    row_number() over (partition by c.developer_id order by c.webhook_rank, c.next_retry_at, c.id) as developer_rank
  from candidates c
),
chosen as (
  select r.id from ranked r
  left join host_load h on h.host = r.target_host
  left join developer_load l on l.developer_id = r.developer_id::text
  where r.host_rank + coalesce(h.in_flight, 0) <= ?
  order by r.developer_rank + coalesce(l.in_flight, 0), r.next_retry_at, r.id
  limit ?
),
claimed as (
  update deliveries set claim_token = ?, claimed_until = ?
  where id in (select id from chosen)
  returning id, webhook_id, change_id, message_id, event_type, attempts
)
select c.id, c.webhook_id, c.message_id, c.event_type, c.attempts, w.url, w.secret, w.developer_id, w.target_host,
  w.deleted_at is not null as webhook_deleted,
  m.entity_type, m.entity_id, m.action, m.changed_fields, m.previous_data, m.new_data
from claimed c
join webhooks w on w.id = c.webhook_id
left join matched_changes m on m.id = c.change_id`;
