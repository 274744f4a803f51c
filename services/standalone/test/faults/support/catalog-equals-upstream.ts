import ICAL from 'ical.js';
import { semesterIdOf } from '@timetable/sync/testing';
import type { SystemUnderFault } from './system-under-fault.js';

/** The catalog's lists, by entity type, as sync's snapshot names them. */
const LISTS: Record<string, string[]> = {
  program: ['/programs', '/programs?archived=true'],
  semester: ['/semesters'],
  course: ['/courses'],
  room: ['/rooms'],
  instructor: ['/instructors'],
};

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
