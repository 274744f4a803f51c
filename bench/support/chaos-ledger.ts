/**
 * The soak's accounts, once every fault has healed: what sync published run by run (the upstream's changes as
 * it detected them), what the change log holds of each run, what the subscriber received, and whether the
 * catalog equals the upstream. Lost and duplicated are counted per sync run, so a loss in one run and a
 * duplicate in another never cancel out.
 */
import type { ChangeStream } from '../../services/standalone/test/faults/support/change-stream.js';
import { catalogEqualsUpstream } from '../../services/standalone/test/faults/support/catalog-equals-upstream.js';
import { eventually } from '../../services/standalone/test/faults/support/eventually.js';
import type { FaultSystem } from '../../services/standalone/test/faults/support/fault-system.js';

export interface Ledger {
  syncRuns: Record<string, number>;
  /** Changes sync published in the soak's runs: the change records there must be. */
  changesPublished: number;
  changeRecords: number;
  lost: number;
  duplicated: number;
  deliveriesExpected: number;
  deliveriesReceived: number;
  /** Every attempt the subscriber answered, retries included (at least once may be more than once). */
  deliveryAttempts: number;
  /** Changes the subscriber received under more than one `webhook-id` (a retry must keep it). */
  changesUnderTwoWebhookIds: number;
  deadLetters: number;
  catalogEqualsUpstream: boolean;
}

export interface RunRow {
  id: string;
  status: string;
  published: number;
}

/** Waits for a clean sync run after the faults healed and for its outbox to drain. */
export async function settle(system: FaultSystem, healedAt: Date): Promise<void> {
  await eventually(
    'a succeeded sync run after the faults healed, its outbox drained',
    async () => {
      const [run] = await system.query<{ n: number }>('sync', "select count(*)::int as n from sync.sync_runs where started_at > $1 and status = 'succeeded'", [healedAt]);
      const [outbox] = await system.query<{ n: number }>('sync', 'select count(*)::int as n from sync.outbox');
      return run && run.n > 0 && outbox?.n === 0 ? true : undefined;
    },
    600_000,
  );
}

export async function keepLedger(system: FaultSystem, stream: ChangeStream): Promise<Ledger> {
  const runs = await system.query<RunRow>(
    'sync',
    'select id::text, status, (created_count + updated_count + deleted_count)::int as published from sync.sync_runs where started_at >= $1',
    [stream.since],
  );
  const changesPublished = runs.reduce((sum, run) => sum + run.published, 0);
  const soak = new Set(runs.map((run) => run.id));
  const records = () => changeRecords(system, stream.since, soak);
  // The change log catches up (a consumer may still be behind); what it lacks after that is lost.
  await eventually('the change log to hold every published change', async () => ((await records()).log.length >= changesPublished ? true : undefined), 300_000).catch(() => undefined);
  const { log, orphans } = await records();
  const { lost, duplicated } = compareRuns(runs, log, orphans);
  const ids = new Set(log.map((record) => record.id));
  const receipts = () => system.receiver.receipts.filter((receipt) => receipt.path === '/hooks/global' && ids.has(receipt.changeId));
  const received = () => new Set(receipts().map((receipt) => receipt.changeId)).size;
  await eventually('every change delivered', async () => (received() >= ids.size ? true : undefined), 600_000).catch(() => undefined);
  const catalogEqual = await eventually('the catalog to equal the upstream', () => catalogEqualsUpstream(system), 300_000).catch(() => false);
  return {
    syncRuns: runs.reduce<Record<string, number>>((byStatus, run) => ({ ...byStatus, [run.status]: (byStatus[run.status] ?? 0) + 1 }), {}),
    changesPublished,
    changeRecords: log.length,
    lost,
    duplicated,
    deliveriesExpected: ids.size,
    deliveriesReceived: received(),
    deliveryAttempts: receipts().length,
    changesUnderTwoWebhookIds: splitWebhookIds(receipts()),
    deadLetters: await system.deadLetterCount(),
    catalogEqualsUpstream: catalogEqual === true,
  };
}

export interface LogRow {
  id: string;
  run: string;
  entity: string;
}

/** The change log's records of the soak's runs, and how many records since it began no committed run published. */
async function changeRecords(system: FaultSystem, since: Date, soak: ReadonlySet<string>): Promise<{ log: LogRow[]; orphans: number }> {
  const rows = await system.query<LogRow>(
    'changes',
    "select id::text, sync_run_id::text as run, entity_type || ':' || entity_id as entity from changes.changes where created_at >= $1",
    [since],
  );
  const committed = new Set((await system.query<{ id: string }>('sync', 'select id::text from sync.sync_runs')).map((run) => run.id));
  return { log: rows.filter((row) => soak.has(row.run)), orphans: rows.filter((row) => !committed.has(row.run)).length };
}

/**
 * Per run: records missing from what it published are lost, records beyond it (or a second record of one
 * entity in one run) duplicated; a record of no committed run was never published and counts as duplicated.
 */
export function compareRuns(runs: readonly RunRow[], log: readonly LogRow[], orphans: number): { lost: number; duplicated: number } {
  const byRun = new Map<string, string[]>();
  for (const record of log) byRun.set(record.run, [...(byRun.get(record.run) ?? []), record.entity]);
  let lost = 0;
  let duplicated = orphans;
  for (const run of runs) {
    const entities = byRun.get(run.id) ?? [];
    lost += Math.max(0, run.published - entities.length);
    duplicated += Math.max(0, entities.length - run.published, entities.length - new Set(entities).size);
  }
  return { lost, duplicated };
}

function splitWebhookIds(receipts: readonly { changeId: string; webhookId: string | undefined }[]): number {
  const byChange = new Map<string, Set<string | undefined>>();
  for (const receipt of receipts) byChange.set(receipt.changeId, (byChange.get(receipt.changeId) ?? new Set()).add(receipt.webhookId));
  return [...byChange.values()].filter((webhookIds) => webhookIds.size !== 1 || webhookIds.has(undefined)).length;
}

/** Nothing lost or duplicated, every change delivered, the catalog the upstream's. */
export function clean(ledger: Ledger): boolean {
  return (
    ledger.lost === 0 &&
    ledger.duplicated === 0 &&
    ledger.deliveriesReceived === ledger.deliveriesExpected &&
    ledger.changesUnderTwoWebhookIds === 0 &&
    ledger.deadLetters === 0 &&
    ledger.catalogEqualsUpstream
  );
}
