import { expect } from 'vitest';
import type { ChangeStream } from './change-stream.js';
import { catalogEqualsUpstream } from './catalog-equals-upstream.js';
import { eventually, sleep } from './eventually.js';
import type { SystemUnderFault } from './system-under-fault.js';

/** /changes answers at most 500 records; a row's stream stays well below. */
const PAGE = 500;

/**
 * What every row of the fault matrix ends with, once its fault is healed: every change of the stream is in
 * the change log exactly once; every webhook received each of them at least once, under one `webhook-id`
 * per change (a retry never looks like a new delivery); the catalog equals the upstream as sync mirrored
 * it; and nothing was put aside in a dead-letter topic or table (nothing was undecodable or refused, only
 * ever waited for).
 */
export async function expectNothingLostOrDuplicated(system: SystemUnderFault, stream: ChangeStream, webhooks = ['global']): Promise<void> {
  const published = await stream.published();
  expect(published, 'changes in the stream').toBeGreaterThan(0);
  expect(published, 'changes in the stream').toBeLessThan(PAGE);
  await eventually('the change log', async () => ((await changeIds(system, stream)).length >= published ? true : undefined));
  for (const label of webhooks) {
    await eventually(`the deliveries to ${label}`, async () => {
      const received = new Set(receiptsOf(system, label).map((receipt) => receipt.changeId));
      return (await changeIds(system, stream)).every((id) => received.has(id)) ? true : undefined;
    });
  }
  await eventually('the catalog to equal the upstream', () => catalogEqualsUpstream(system));
  // A late duplicate (a redelivered batch, a retried attempt) would show within a few cycles.
  await sleep(3_000);
  const ids = await changeIds(system, stream);
  expect(ids).toHaveLength(published);
  expect(new Set(ids).size).toBe(published);
  for (const label of webhooks) expectOneWebhookIdPerChange(system, label, ids);
  expect(await system.deadLetterCount()).toBe(0);
}

async function changeIds(system: SystemUnderFault, stream: ChangeStream): Promise<string[]> {
  const { status, body } = await system.api<{ data: { id: string }[] }>(`/changes?since=${encodeURIComponent(stream.since.toISOString())}&limit=${PAGE}`);
  if (status !== 200) throw new Error(`/changes answered ${status}`);
  return body.data.map((change) => change.id);
}

function receiptsOf(system: SystemUnderFault, label: string) {
  return system.receiver.receipts.filter((receipt) => receipt.path === `/hooks/${label}`);
}

function expectOneWebhookIdPerChange(system: SystemUnderFault, label: string, changeIds: string[]): void {
  const wanted = new Set(changeIds);
  const idsByChange = new Map<string, Set<string | undefined>>();
  for (const receipt of receiptsOf(system, label).filter((candidate) => wanted.has(candidate.changeId))) {
    idsByChange.set(receipt.changeId, (idsByChange.get(receipt.changeId) ?? new Set()).add(receipt.webhookId));
  }
  const twice = [...idsByChange].filter(([, webhookIds]) => webhookIds.size !== 1 || webhookIds.has(undefined));
  expect(twice, `changes ${label} received under more than one webhook-id`).toEqual([]);
}
