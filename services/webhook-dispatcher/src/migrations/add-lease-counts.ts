import type { Migration } from '@timetable/db';

/**
 * lease_counts: how many leases each claim holds per subscriber host and developer, the load every claim
 * reads (DeliveryStore keeps it: +n when a claim leases, -n when the holder ends leases). Kept apart from
 * `deliveries` so the lease columns there lose their index (`deliveries_leased`), and with a fillfactor
 * that leaves room on each page, the lease update is a HOT update: no new entry in any of the table's
 * indexes. A claim leases a few hundred deliveries of a few hosts, so this table gets a few rows per claim
 * where a row per lease cost as much as it saved. The leases held when this runs are counted from the rows.
 */
export const addLeaseCounts: Migration = {
  async up(knex) {
    // Dropping the index waits for an exclusive lock on deliveries, and every statement on the table would
    // queue behind that wait: give up instead, and the service's next start tries again.
    await knex.raw("set local lock_timeout = '10s'");
    await knex.raw(`
      create table lease_counts (
        claim_token uuid not null,
        target_host text not null,
        developer_id uuid not null,
        claimed_by uuid,
        leased int not null,
        claimed_until timestamptz not null,
        primary key (claim_token, target_host, developer_id)
      ) with (fillfactor = 50)`);
    await knex.raw(`
      insert into lease_counts (claim_token, target_host, developer_id, claimed_by, leased, claimed_until)
      select d.claim_token, w.target_host, w.developer_id, d.claimed_by, count(*), max(d.claimed_until)
      from deliveries d join webhooks w on w.id = d.webhook_id
      where d.status = 'pending' and d.claimed_until > now() and d.claim_token is not null
      group by d.claim_token, w.target_host, w.developer_id, d.claimed_by`);
    await knex.raw('drop index deliveries_leased');
    // Room on each page for the lease's new row version, so the update can stay on the page (HOT).
    await knex.raw('alter table deliveries set (fillfactor = 70)');
  },
  async down(knex) {
    await knex.raw('alter table deliveries reset (fillfactor)');
    await knex.raw("create index deliveries_leased on deliveries (claimed_until) where status = 'pending' and claimed_until is not null");
    await knex.raw('drop table lease_counts');
  },
};
