import type { Migration } from '@timetable/db';

/**
 * webhooks.target_host: the subscriber's `host:port`, the unit of the per-host limit and breaker, so the
 * claim can group due deliveries by it without parsing URLs.
 * deliveries.origin: why a delivery exists (match, test, redeliver, recover). A change is matched to a
 * webhook once (the unique index now covers only `match`); redeliver and recover add further deliveries
 * of the same change, and the test limit counts `test` rows.
 */
export const addDeliveryFairness: Migration = {
  async up(knex) {
    await knex.schema.alterTable('webhooks', (table) => {
      table.text('target_host');
    });
    const webhooks: { id: string; url: string }[] = await knex('webhooks').select('id', 'url');
    for (const webhook of webhooks) {
      await knex('webhooks').where({ id: webhook.id }).update({ target_host: new URL(webhook.url).host });
    }
    await knex.raw('alter table webhooks alter column target_host set not null');

    await knex.schema.alterTable('deliveries', (table) => {
      table.text('origin').notNullable().defaultTo('match');
    });
    await knex('deliveries').whereNull('change_id').update({ origin: 'test' });
    await knex.raw("alter table deliveries add constraint deliveries_origin check (origin in ('match', 'test', 'redeliver', 'recover'))");
    await knex.schema.alterTable('deliveries', (table) => {
      table.dropUnique(['webhook_id', 'change_id']);
    });
    await knex.raw("create unique index deliveries_matched_once on deliveries (webhook_id, change_id) where origin = 'match'");
    await knex.raw("create index deliveries_due_by_webhook on deliveries (webhook_id, next_retry_at, id) where status = 'pending'");
    // The leases held now: the per-host load every claim reads.
    await knex.raw("create index deliveries_leased on deliveries (claimed_until) where status = 'pending' and claimed_until is not null");
    await knex.raw('create index deliveries_created_at on deliveries (created_at)');
    await knex.raw('create index deliveries_change on deliveries (change_id)');
  },
  async down(knex) {
    await knex.raw('drop index deliveries_change');
    await knex.raw('drop index deliveries_created_at');
    await knex.raw('drop index deliveries_leased');
    await knex.raw('drop index deliveries_due_by_webhook');
    await knex.raw('drop index deliveries_matched_once');
    await knex("deliveries").whereNot({ origin: 'match' }).whereNotNull('change_id').del();
    await knex.schema.alterTable('deliveries', (table) => {
      table.unique(['webhook_id', 'change_id']);
    });
    await knex.raw('alter table deliveries drop constraint deliveries_origin');
    await knex.schema.alterTable('deliveries', (table) => {
      table.dropColumn('origin');
    });
    await knex.schema.alterTable('webhooks', (table) => {
      table.dropColumn('target_host');
    });
  },
};
