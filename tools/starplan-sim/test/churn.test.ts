import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { ChurnError, startSimulator, type RunningSimulator } from '../src/index.js';
import { eventsOf, unescapeText } from './support/ical-lines.js';
import { decodeResponse, fetchItems } from './support/starplan-client.js';

const sim: RunningSimulator = await startSimulator({ seed: 9, today: '2024-03-20' });
const { simulator } = sim;
afterAll(() => sim.stop());
beforeEach(() => simulator.reset());

const pu = () => simulator.model.currentPuId;

async function feedEvents(pgid: number) {
  const response = await fetch(`${sim.url}/ical?lan=de&puid=${pu()}&type=pg&pgid=${pgid}`);
  return eventsOf(await decodeResponse(response));
}

/** A scheduled occurrence of the current term and the group whose feed lists it. */
function someOccurrence() {
  const { model } = simulator;
  const occurrence = model.occurrencesOfTerm(pu()).find((o) => !o.cancelled && o.roomIds.length === 1);
  if (!occurrence) throw new Error('no occurrence');
  const pgid = model.lectures.get(occurrence.lectureId)?.pgid as number;
  return { occurrence, pgid };
}

describe('single changes show in what is served', () => {
  it('moveRoom changes LOCATION of that occurrence only', async () => {
    const { occurrence, pgid } = someOccurrence();
    const room = [...simulator.model.rooms.values()].find((r) => !occurrence.roomIds.includes(r.id));
    simulator.moveRoom({ occurrenceId: occurrence.id, roomIds: [room?.id as number] });
    const locations = (await feedEvents(pgid)).map((event) => unescapeText(event.LOCATION ?? ''));
    expect(locations.filter((location) => location === room?.shortname).length).toBeGreaterThanOrEqual(1);
    expect(simulator.expectedOccurrences(pu(), pgid).find((o) => o.occurrenceId === occurrence.id)?.roomShortnames).toEqual([
      room?.shortname,
    ]);
  });

  it('cancelOccurrence marks it cancelled in the feed and drops it from the expectations', async () => {
    const { occurrence, pgid } = someOccurrence();
    const before = (await feedEvents(pgid)).filter((event) => event.STATUS === 'CANCELLED').length;
    simulator.cancelOccurrence({ occurrenceId: occurrence.id });
    const after = (await feedEvents(pgid)).filter((event) => event.STATUS === 'CANCELLED').length;
    expect(after).toBe(before + 1);
    expect(simulator.expectedOccurrences(pu(), pgid).map((o) => o.occurrenceId)).not.toContain(occurrence.id);
  });

  it('addOccurrence adds a VEVENT with its note as a further DESCRIPTION line', async () => {
    const { occurrence, pgid } = someOccurrence();
    const count = (await feedEvents(pgid)).length;
    simulator.addOccurrence({ lectureId: occurrence.lectureId, puId: pu(), date: '2024-04-27', start: '09:00', end: '12:00', note: 'Zusatztermin' });
    const events = await feedEvents(pgid);
    expect(events).toHaveLength(count + 1);
    const added = events.find((event) => event['DTSTART;TZID=Europe/Berlin'] === '20240427T090000');
    expect(unescapeText(added?.DESCRIPTION ?? '').split('\n').at(-1)).toBe('Zusatztermin');
  });

  it('renameLecture changes getPgsExt and the feed', async () => {
    const { occurrence, pgid } = someOccurrence();
    simulator.renameLecture({ lectureId: occurrence.lectureId, name: 'Größere Übung; neu, & anders', shortname: 'GÜ' });
    const ogId = simulator.model.groups.get(pgid)?.ogId;
    const groups = await fetchItems(sim.url, `m=getPgsExt&pu=${pu()}&og=${ogId}`);
    const lectures = groups.flatMap((group) => group.lectures as { id: number; name: string }[]);
    expect(lectures.find((lecture) => lecture.id === occurrence.lectureId)?.name).toBe('Größere Übung; neu, & anders');
    const summaries = (await feedEvents(pgid)).map((event) => unescapeText(event.SUMMARY ?? ''));
    expect(summaries).toContain('GÜ');
  });

  it('renameRoom and addLecturer change getros and getles', async () => {
    const room = [...simulator.model.rooms.values()][0];
    simulator.renameRoom({ roomId: room?.id as number, shortname: 'Z9.99' });
    const rooms = await fetchItems(sim.url, `m=getros&loc=${room?.locationId}`);
    expect(rooms.map((r) => r.shortname)).toContain('Z9.99');
    const ogId = [...simulator.model.programs.keys()][0] as number;
    const lecturer = simulator.addLecturer({ ogIds: [ogId], title: 'Prof. Dr.', firstname: 'Ödön', name: 'Weißkirchner' });
    const lecturers = await fetchItems(sim.url, `m=getles&og=${ogId}`);
    expect(lecturers).toContainEqual({ id: lecturer.id, name: 'Weißkirchner', firstname: 'Ödön', title: 'Prof. Dr.', email: 'oedoen.weisskirchner@hs-rosenau.example' });
  });

  it('addGroup and removeGroup change getPgsExt', async () => {
    const ogId = [...simulator.model.programs.keys()][0] as number;
    const query = `m=getPgsExt&pu=${pu()}&og=${ogId}`;
    const before = await fetchItems(sim.url, query);
    const group = simulator.addGroup({ ogId, seed: 5 });
    expect(group.shortname).toMatch(/7$/);
    const added = await fetchItems(sim.url, query);
    expect(added.map((g) => g.id)).toEqual([...before.map((g) => g.id), group.id]);
    expect(simulator.expectedOccurrences(pu(), group.id).length).toBeGreaterThan(0);
    const removed = before[0]?.id as number;
    simulator.removeGroup({ pgid: removed });
    expect((await fetchItems(sim.url, query)).map((g) => g.id)).not.toContain(removed);
    const ical = await fetch(`${sim.url}/ical?lan=de&puid=${pu()}&type=pg&pgid=${removed}`);
    expect(JSON.parse(await decodeResponse(ical))).toEqual(['', [{ error: expect.any(String) }]]);
  });

  it('rejects unknown ids with a ChurnError', () => {
    expect(() => simulator.cancelOccurrence({ occurrenceId: 99_999_999 })).toThrow(ChurnError);
    expect(() => simulator.renameRoom({ roomId: 1, name: 'x' })).toThrow(ChurnError);
  });
});

describe('churn(seed)', () => {
  it('is deterministic and changes the served data', async () => {
    const pgids = [...simulator.model.groups.keys()];
    const snapshot = () => JSON.stringify(pgids.map((pgid) => simulator.expectedOccurrences(pu(), pgid)));
    const initial = snapshot();
    const first = simulator.churn(17, 20);
    const afterFirst = snapshot();
    simulator.reset();
    expect(snapshot()).toBe(initial);
    expect(simulator.churn(17, 20)).toEqual(first);
    expect(snapshot()).toBe(afterFirst);
    expect(afterFirst).not.toBe(initial);
    expect(new Set(first.map((record) => record.op)).size).toBeGreaterThan(3);
  });

  it('is reachable over HTTP, as are single changes and reset', async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${sim.url}/__admin/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const churned = await post('churn', { seed: 3, count: 5 });
    expect(churned.status).toBe(200);
    expect(((await churned.json()) as { applied: unknown[] }).applied.length).toBeGreaterThan(0);

    const { occurrence } = someOccurrence();
    const before = Date.now();
    const change = await post('change', { op: 'cancelOccurrence', args: { occurrenceId: occurrence.id } });
    expect(change.status).toBe(200);
    const appliedAt = Date.parse(((await change.json()) as { appliedAt: string }).appliedAt);
    expect(appliedAt).toBeGreaterThanOrEqual(before);
    expect(appliedAt).toBeLessThanOrEqual(Date.now());
    expect(simulator.model.occurrence(occurrence.id)?.cancelled).toBe(true);
    expect((await post('change', { op: 'cancelOccurrence', args: { occurrenceId: -1 } })).status).toBe(400);
    expect((await post('change', { op: 'renameRoom', args: { roomId: 1 } })).status).toBe(400);

    expect((await post('reset', {})).status).toBe(204);
    expect(simulator.model.occurrence(occurrence.id)?.cancelled).toBe(false);
  });

  it('serves expectations over HTTP', async () => {
    const pgid = [...simulator.model.groups.keys()][0] as number;
    const response = await fetch(`${sim.url}/__admin/expected?pu=${pu()}&pg=${pgid}`);
    expect(await response.json()).toEqual(simulator.expectedOccurrences(pu(), pgid));
    const groups = (await (await fetch(`${sim.url}/__admin/groups`)).json()) as { pgid: number; shortname: string }[];
    expect(groups.map((group) => group.pgid).sort()).toEqual([...simulator.model.groups.keys()].sort());
    expect(groups.find((group) => group.pgid === pgid)?.shortname).toBe(simulator.model.groups.get(pgid)?.shortname);
  });
});
