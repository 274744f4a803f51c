import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { HUGE_NUMBER, startSimulator, type RecordFaultName, type RunningSimulator } from '../src/index.js';
import { eventsOf } from './support/ical-lines.js';
import { decodeResponse, unwrap } from './support/starplan-client.js';

const sim: RunningSimulator = await startSimulator({ seed: 3, today: '2024-03-20' });
const { simulator } = sim;
afterAll(() => sim.stop());
beforeEach(() => simulator.clearMisbehaviour());

const pu = () => simulator.model.currentPuId;
const items = async (query: string) => {
  const answer = unwrap(JSON.parse(await decodeResponse(await fetch(`${sim.url}/json?${query}`))));
  if ('error' in answer) throw new Error(answer.error);
  return answer.items;
};
const group = () => [...simulator.model.groups.values()].find((candidate) => simulator.expectedOccurrences(pu(), candidate.id).length > 2)!;
const feedEvents = async () => eventsOf(await (await fetch(`${sim.url}/ical?lan=de&puid=${pu()}&type=pg&pgid=${group().id}`)).text());
/** The VEVENTs of a feed with the faults put into its second occurrence, and that occurrence. */
async function garbledFeed(faults: { fault: RecordFaultName; count?: number }[]) {
  const occurrence = simulator.expectedOccurrences(pu(), group().id)[1]!;
  simulator.misbehave('ical', { faults: faults.map((entry) => ({ ...entry, recordId: occurrence.occurrenceId })) });
  return { events: await feedEvents(), occurrence };
}
const property = (event: Record<string, string>, prefix: string) => Object.entries(event).find(([name]) => name.startsWith(prefix));

describe('faults in a JSON record', () => {
  it('a room of 3,000,000,000 seats, the rest of the list as it was', async () => {
    const query = `m=getros&loc=${simulator.model.sortedLocations()[0]!.id}`;
    const rooms = await items(query);
    const room = rooms[2]!;
    simulator.misbehave('getros', { faults: [{ fault: 'huge_number', recordId: room.id as number }] });
    const garbled = await items(query);
    expect(garbled.find((item) => item.id === room.id)?.seats).toBe(HUGE_NUMBER);
    expect(garbled.filter((item) => item.id !== room.id)).toEqual(rooms.filter((item) => item.id !== room.id));
  });

  it('a lecture within a planning group named with two megabytes', async () => {
    const lecture = simulator.model.lecturesOfGroup(group().id)[0]!;
    simulator.misbehave('getPgsExt', { faults: [{ fault: 'huge_string', recordId: lecture.id }] });
    const groups = await items(`m=getPgsExt&pu=${pu()}&og=${group().ogId}`);
    const listed = groups.flatMap((item) => item.lectures as Record<string, unknown>[]).find((item) => item.id === lecture.id);
    expect((listed?.name as string).length).toBe(2 * 2 ** 20);
  });

  it('a planning unit on 30 February, another ending before it starts', async () => {
    const [first, second] = simulator.model.planningUnits;
    simulator.misbehave('getpus', { faults: [{ fault: 'impossible_date', recordId: first!.id }, { fault: 'end_before_start', recordId: second!.id }] });
    const units = await items('m=getpus');
    expect(units.find((unit) => unit.id === first!.id)?.startdate).toMatch(/^\d{4}-02-30$/);
    expect(units.find((unit) => unit.id === second!.id)).toMatchObject({ startdate: second!.enddate, enddate: second!.startdate });
  });

  it('a list of 20,000 copies of a lecturer besides the others', async () => {
    const before = await items(`m=getles&og=${group().ogId}`);
    simulator.misbehave('getles', { faults: [{ fault: 'huge_list', count: 20_000 }] });
    expect(await items(`m=getles&og=${group().ogId}`)).toHaveLength(before.length + 19_999);
  });
});

describe('faults in a VEVENT', () => {
  it('an impossible date and an impossible time', async () => {
    const { events } = await garbledFeed([{ fault: 'impossible_date' }]);
    expect(events.filter((event) => /^\d{4}0230T\d{6}$/.test(property(event, 'DTSTART')![1]))).toHaveLength(1);
    const late = await garbledFeed([{ fault: 'impossible_time' }]);
    expect(late.events.filter((event) => property(event, 'DTSTART')![1].endsWith('T240000'))).toHaveLength(1);
  });

  it('a Windows zone name and an unknown zone as TZID', async () => {
    const windows = await garbledFeed([{ fault: 'windows_zone' }]);
    expect(windows.events.filter((event) => property(event, 'DTSTART')![0] === 'DTSTART;TZID=W. Europe Standard Time')).toHaveLength(1);
    const unknown = await garbledFeed([{ fault: 'unknown_zone' }]);
    expect(unknown.events.filter((event) => property(event, 'DTEND')![0] === 'DTEND;TZID=Mars/Olympus_Mons')).toHaveLength(1);
  });

  it('an end before the start, and one five years after it', async () => {
    const { events, occurrence } = await garbledFeed([{ fault: 'end_before_start' }]);
    const swapped = events.find((event) => event['DTEND;TZID=Europe/Berlin'] === occurrence.start.replace(/[-:]/g, ''));
    expect(swapped?.['DTSTART;TZID=Europe/Berlin']).toBe(occurrence.end.replace(/[-:]/g, ''));
    const long = await garbledFeed([{ fault: 'huge_number' }]);
    const lasting = long.events.find((event) => Number(event['DTEND;TZID=Europe/Berlin']?.slice(0, 4)) === Number(occurrence.end.slice(0, 4)) + 5);
    expect(lasting).toBeDefined();
  });

  it('a DESCRIPTION of two megabytes, and a feed of many copies', async () => {
    // The copies are made before the DESCRIPTION grows: one VEVENT of two megabytes, not five thousand.
    const { events } = await garbledFeed([{ fault: 'huge_list', count: 5_000 }, { fault: 'huge_string' }]);
    expect(events.some((event) => event.DESCRIPTION?.length === 2 * 2 ** 20)).toBe(true);
    expect(events.length).toBe(simulator.expectedOccurrences(pu(), group().id).length + 4_999 + cancelledIn(group().id));
  });
});

describe('an oversized answer', () => {
  it('is padded to the size asked for and still reads as the same list', async () => {
    const before = await items('m=getlocs');
    simulator.misbehave('getlocs', { faults: [{ fault: 'oversized', bytes: 5_000_000 }] });
    const response = await fetch(`${sim.url}/json?m=getlocs`);
    expect(response.headers.get('content-length')).toBe('5000000');
    expect(unwrap(JSON.parse(await decodeResponse(response)))).toEqual({ items: before });
  });
});

describe('over the admin routes', () => {
  it('takes faults and refuses an unknown one', async () => {
    const post = (faults: unknown) =>
      fetch(`${sim.url}/__admin/misbehave`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kind: 'getros', faults }) });
    expect((await post([{ fault: 'huge_number', recordId: 1 }])).status).toBe(204);
    expect(simulator.misbehaviours.list().getros?.faults).toEqual([{ fault: 'huge_number', recordId: 1 }]);
    expect((await post([{ fault: 'fire' }])).status).toBe(400);
  });
});

function cancelledIn(pgid: number): number {
  return simulator.model.occurrencesOfGroup(pu(), pgid).filter((occurrence) => occurrence.cancelled).length;
}
