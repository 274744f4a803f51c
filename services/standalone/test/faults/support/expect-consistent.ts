import ICAL from 'ical.js';
import { expect } from 'vitest';
import { semesterIdOf } from '@timetable/sync/testing';
import type { ChangeStream } from './change-stream.js';
import { eventually, sleep } from './eventually.js';
import type { SystemUnderFault } from './system-under-fault.js';

/** /changes answers at most 500 records; a row's stream stays well below. */
const PAGE = 500;
const LISTS: Record<string, string[]> = {
  program: ['/programs', '/programs?archived=true'],
  semester: ['/semesters'],
  course: ['/courses'],
  room: ['/rooms'],
  instructor: ['/instructors'],
};

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

/**
 * The catalog equals the upstream: every list holds exactly sync's mirrored entities with their names, and
 * every group's semester feed holds exactly the occurrences the simulator's own feed of that group has.
 */
export async function catalogEqualsUpstream(system: SystemUnderFault): Promise<true | undefined> {
  return (await catalogEqualsSnapshot(system)) && (await feedsEqualUpstream(system));
}

/** Every catalog list holds exactly sync's mirrored entities with their names; events are counted. */
async function catalogEqualsSnapshot(system: SystemUnderFault): Promise<true | undefined> {
  const rows = await system.query<{ entity_type: string; entity_id: string; name: string | null }>(
    'sync',
    "select entity_type, entity_id, data->>'name' as name from sync.snapshot_entities",
  );
  for (const [type, paths] of Object.entries(LISTS)) {
    const expected = rows.filter((row) => row.entity_type === type).map((row) => `${row.entity_id}|${row.name}`).sort();
    const served: string[] = [];
    for (const path of paths) {
      const { status, body } = await system.api<{ data: { id: string; name: string }[] }>(path);
      if (status !== 200) return undefined;
      served.push(...body.data.map((entry) => `${entry.id}|${entry.name}`));
    }
    if (JSON.stringify(served.sort()) !== JSON.stringify(expected)) return undefined;
  }
  const { body } = await system.api<{ data: { events: number } }>('/statistics');
  return body.data.events === rows.filter((row) => row.entity_type === 'event').length ? true : undefined;
}

/** The simulator's wall clock is Europe/Berlin; feeds carry UTC instants, compared here as Berlin local times. */
const berlin = new Intl.DateTimeFormat('sv-SE', {
  timeZone: 'Europe/Berlin', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
});
const localOf = (instant: Date) => berlin.format(instant).replace(' ', 'T');
/** What sync makes of a name (control characters removed, lone surrogates replaced), so the truth can be compared. */
const cleanName = (name: string) =>
  // eslint-disable-next-line no-control-regex
  name.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '').replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

interface ExpectedOccurrence {
  start: string;
  end: string;
  lectureName: string;
}

/**
 * Each group's semester feed against the simulator's expected occurrences of that group, as `start|end|name`
 * in local time. Only occurrences from an hour from now to 300 days on are compared: a feed holds the 365 days
 * from when it was rendered, and may have been rendered (and cached) a little earlier.
 */
async function feedsEqualUpstream(system: SystemUnderFault): Promise<true | undefined> {
  const now = Date.now();
  const [from, to] = [localOf(new Date(now + 3_600_000)), localOf(new Date(now + 300 * 86_400_000))];
  const inWindow = (localStart: string) => localStart >= from && localStart < to;
  const groups = (await (await fetch(`${system.upstreamBaseUrl}/__admin/groups`)).json()) as { pgid: number }[];
  let compared = 0;
  for (const { pgid } of groups) {
    const expected = (await (await fetch(`${system.upstreamBaseUrl}/__admin/expected?pg=${pgid}`)).json()) as ExpectedOccurrence[];
    const wanted = expected.filter((occurrence) => inWindow(occurrence.start)).map((occurrence) => `${occurrence.start}|${occurrence.end}|${cleanName(occurrence.lectureName)}`);
    const response = await fetch(`${system.publicUrl}/v1/timetable/ical/${semesterIdOf(pgid)}`);
    if (response.status !== 200) return undefined;
    const calendar = new ICAL.Component(ICAL.parse(await response.text()) as unknown[]);
    const served = calendar
      .getAllSubcomponents('vevent')
      .map((event) => {
        const instant = (name: string) => localOf((event.getFirstPropertyValue(name) as ICAL.Time).toJSDate());
        return { start: instant('dtstart'), key: `${instant('dtstart')}|${instant('dtend')}|${String(event.getFirstPropertyValue('summary'))}` };
      })
      .filter((event) => inWindow(event.start))
      .map((event) => event.key);
    if (JSON.stringify(served.sort()) !== JSON.stringify(wanted.sort())) return undefined;
    compared += wanted.length;
  }
  // A window without occurrences would compare nothing and prove nothing.
  return compared > 0 ? true : undefined;
}
