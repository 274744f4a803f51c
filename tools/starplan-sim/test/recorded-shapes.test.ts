import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../src/index.js';
import { decodeBytes, fetchItems, fetchJson, recordedAsServed, shapeOf, unwrap } from './support/starplan-client.js';

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ seed: 7, today: '2024-03-20' });
});
afterAll(() => sim.stop());

function recordedItems(file: string): Record<string, unknown>[] {
  const served = recordedAsServed(file);
  const body = unwrap(JSON.parse(decodeBytes(served.bytes, served.contentType)));
  if ('error' in body) throw new Error(body.error);
  return body.items;
}

describe('recorded answers and simulator answers have the same shape', () => {
  const cases: [file: string, query: () => string][] = [
    ['getpus.json', () => 'm=getpus'],
    ['getlocs.json', () => 'm=getlocs'],
    ['getogs_pu37.json', () => `m=getogs&pu=${sim.simulator.model.currentPuId}`],
    ['searchRooms_loc3.json', () => 'm=getros&loc=3'],
  ];

  it.each(cases)('%s', async (file, query) => {
    const recorded = recordedItems(file);
    const served = await fetchItems(sim.url, query());
    expect(served.length).toBeGreaterThan(0);
    const recordedShape = shapeOf(recorded[0]);
    for (const item of [...recorded, ...served]) expect(shapeOf(item)).toEqual(recordedShape);
  });

  it('getPgsExt: groups with nested lectures carrying their home pgid', async () => {
    const recorded = recordedItems('getPgsExt_pu37_og35.json');
    const program = sim.simulator.model.sortedPrograms()[0];
    const served = await fetchItems(sim.url, `m=getPgsExt&pu=${sim.simulator.model.currentPuId}&og=${program?.id}`);
    expect(served).toHaveLength(6);
    const recordedShape = shapeOf(recorded[0]);
    for (const group of [...recorded, ...served]) expect(shapeOf(group)).toEqual(recordedShape);
  });

  it('the error body has the recorded shape', async () => {
    const served = recordedAsServed('getpartinfo_error.json');
    const recorded = JSON.parse(decodeBytes(served.bytes, served.contentType)) as unknown;
    const { response, body } = await fetchJson(sim.url, 'm=getpartinfo');
    expect(response.status).toBe(200);
    expect(body).toEqual({ error: expect.any(String) });
    expect(shapeOf(recorded)).toEqual(['string']);
    expect(unwrap(recorded)).toEqual({ error: 'no planning units' });
  });
});

describe('recorded answers decode like the simulator output', () => {
  it('umlauts in the recordings survive the ISO-8859-1 round trip', () => {
    const names = recordedItems('getlocs.json').map((location) => location.name);
    expect(names).toContain('Mühldorf (Haus der Wirtschaft)');
    expect(recordedItems('getogs_pu37.json').map((program) => program.name)).toContain(
      'Masterstudiengang Führung und Internationalisierung mittelständischer Unternehmen',
    );
  });

  it('a lecture may be listed by a group that is not its home group, in both', async () => {
    const recorded = recordedItems('getPgsExt_pu37_og35.json');
    const recordedShared = recorded.flatMap((group) =>
      (group.lectures as { pgid: number }[]).filter((lecture) => lecture.pgid !== group.id),
    );
    expect(recordedShared.length).toBeGreaterThan(0);
    const { model } = sim.simulator;
    const shared = [...model.groups.values()].flatMap((group) =>
      model.lecturesOfGroup(group.id).filter((lecture) => lecture.pgid !== group.id),
    );
    expect(shared.length).toBeGreaterThan(0);
  });
});
