import type { Migration } from '@timetable/db';

/**
 * deliveries.claimed_by: the dispatcher instance holding the lease (claim_token stays one per claim, so a
 * lease lost and taken again is still told apart). A claim may lease more for a host than the host may
 * have in flight only when no other dispatcher holds a lease to it; null (a lease taken before this
 * column existed) counts as another dispatcher's.
 */
export const addDeliveryClaimedBy: Migration = {
  async up(knex) {
    await knex.schema.alterTable('deliveries', (table) => {
      table.uuid('claimed_by');
    });
  },
  async down(knex) {
    await knex.schema.alterTable('deliveries', (table) => {
      table.dropColumn('claimed_by');
    });
  },
};
