import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Knex } from '@timetable/db';
import { DISABLE_SQL } from '../src/features/dead-subscribers/failing-webhooks.js';
import { GIVE_UP_SQL } from '../src/features/dead-subscribers/pending-deadline.js';
import type { ClaimedDelivery, DeliveryStore } from '../src/features/delivery/delivery-store.js';
import { singleConnectionStore, type SentStatement } from './support/single-connection-store.js';
import { testResources } from './support/test-resources.js';
import type { Harness } from './support/webhook-harness.js';

const resources = testResources();
afterEach(() => resources.closeAll());
afterAll(() => resources.closeAll());
const { harness } = resources;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function nodesOf(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];
}

/** The plan PostgreSQL chooses for a statement (not run: EXPLAIN without ANALYZE), as its nodes. */
async function planOf(knex: Knex, statement: SentStatement): Promise<PlanNode[]> {
  return knex.transaction(async (trx) => {
    await trx.raw("set local jit = off");
    // Back to knex's placeholders: it numbers them itself, in order, and none of these statements has a `?` of its own.
    const sql = `explain (format json) ${statement.sql.replace(/\$\d+/g, '?')}`;
    const result = await trx.raw<{ rows: { 'QUERY PLAN': { Plan: PlanNode }[] }[] }>(sql, statement.values as Knex.RawBinding[]);
    return nodesOf(result.rows[0]!['QUERY PLAN'][0]!.Plan);
  });
}

const scansOfDeliveries = (nodes: PlanNode[]) => nodes.filter((node) => node['Relation Name'] === 'deliveries');

/** Due deliveries to the webhooks in turn. */
function dueRows(webhookIds: string[], count: number): Record<string, unknown>[] {
  const at = new Date('2025-03-03T09:00:00.000Z');
  return Array.from({ length: count }, (_, index) => ({
    id: randomUUID(), webhook_id: webhookIds[index % webhookIds.length]!, message_id: `msg_${index}`, event_type: 'course.updated',
    status: 'pending', next_retry_at: at, created_at: at, origin: 'test',
  }));
}

/** Inserted directly: publishing this many changes would take the test most of a minute. */
async function insertRows(knex: Knex, rows: Record<string, unknown>[]): Promise<void> {
  for (let start = 0; start < rows.length; start += 2000) await knex('deliveries').insert(rows.slice(start, start + 2000));
}

/**
 * A month of history before `now`, a row a minute to the webhooks in turn: mostly delivered, one in ten
 * failed, one in a hundred still pending.
 */
function historyRows(webhookIds: string[], count: number, now: Date): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, index) => {
    const at = new Date(now.getTime() - (count - index) * 60_000);
    const status = index % 100 === 0 ? 'pending' : index % 10 === 0 ? 'failed' : 'delivered';
    return {
      id: randomUUID(), webhook_id: webhookIds[index % webhookIds.length]!, message_id: `msg_${index}`, event_type: 'course.updated', status,
      attempts: 1, last_attempt_at: at, next_retry_at: status === 'pending' ? at : null, delivered_at: status === 'delivered' ? at : null,
      created_at: at, origin: 'test',
    };
  });
}

/** A statement as knex would send it. */
function sent(raw: Knex.Raw): SentStatement {
  const native = raw.toSQL().toNative();
  return { sql: native.sql, values: native.bindings };
}

async function webhooks(h: Harness, count: number): Promise<{ ids: string[]; hosts: string[] }> {
  const ids: string[] = [];
  const hosts: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const url = `http://127.0.0.1:${9100 + index}/hook`;
    const created = await h.call(randomUUID(), 'POST', '/webhooks', { url });
    expect(created.status).toBe(201);
    ids.push(created.body.data.id);
    hosts.push(new URL(url).host);
  }
  return { ids, hosts };
}

function claimOf(h: Harness, store: DeliveryStore, answeringHosts: string[]): () => Promise<ClaimedDelivery[]> {
  const claimedBy = randomUUID();
  return () => {
    const now = h.clock.now();
    return store.claimDue({
      now, leaseUntil: new Date(now.getTime() + 120_000), claimToken: randomUUID(), limit: 256, hostLimit: 4, claimedBy, hostAheadLimit: 128, answeringHosts,
    });
  };
}

// The plans decide how the dispatcher's statements scale: one that reads every row of `deliveries` costs in
// proportion to the backlog and the history kept, not to the deliveries it handles. EXPLAIN without ANALYZE:
// the plan PostgreSQL chooses, not run.
describe('the plans of the dispatcher\'s statements', () => {
  // Behind a backlog most rows are due, and the planner took a sequential scan for "is anything due to this
  // webhook" (expecting a hit at once, while the scan first passed every leased row) and for the rows to lease.
  it('the claim reads no whole table of deliveries behind a backlog, while it holds leases', async () => {
    const h = await harness();
    const { ids, hosts } = await webhooks(h, 4);
    await insertRows(h.knex, dueRows(ids, 20_000));
    await h.knex.raw('analyze deliveries');
    const single = await singleConnectionStore(h);
    try {
      const claim = claimOf(h, single.store, hosts);
      expect(await claim()).toHaveLength(256);
      const sentBefore = single.sent.length;
      expect(await claim()).toHaveLength(256);
      const statement = single.sent.slice(sentBefore).find((sent) => sent.sql.includes('update deliveries set claim_token'))!;
      const scans = scansOfDeliveries(await planOf(h.knex, statement));
      expect(scans.length).toBeGreaterThan(0);
      expect(scans.filter((node) => node['Node Type'] === 'Seq Scan')).toEqual([]);
    } finally {
      await single.close();
    }
  });

  // The job that bounds dead subscribers runs every few minutes on every replica: it reads the pending
  // deliveries, and the history of webhooks without a recent success only, never all the history kept.
  it('giving up and disabling dead subscribers read no whole table of deliveries behind a month of history', async () => {
    const h = await harness();
    const { ids } = await webhooks(h, 20);
    const now = h.clock.now();
    await insertRows(h.knex, historyRows(ids, 40_000, now));
    await h.knex.raw('analyze deliveries');
    await h.knex.raw('analyze webhooks');
    const statements = [
      sent(h.knex.raw(GIVE_UP_SQL, { now, deadline: new Date(now.getTime() - 72 * 3_600_000), errorMessage: 'given up', batch: 5000 })),
      sent(h.knex.raw(DISABLE_SQL, { now, windowStart: new Date(now.getTime() - 5 * 86_400_000), spanSeconds: 5 * 86_400, reason: 'disabled' })),
    ];
    for (const statement of statements) {
      const scans = scansOfDeliveries(await planOf(h.knex, statement));
      expect(scans.length).toBeGreaterThan(0);
      expect(scans.filter((node) => node['Node Type'] === 'Seq Scan')).toEqual([]);
    }
  });
});
