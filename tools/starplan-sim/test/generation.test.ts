import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, startSimulator, type RunningSimulator } from '../src/index.js';
import { fetchItems } from './support/starplan-client.js';

/** Every JSON list and every feed of the current term, with the per-export UID and DTSTAMP blanked. */
async function servedUniversity(sim: RunningSimulator): Promise<string[]> {
  const pu = sim.simulator.model.currentPuId;
  const programs = await fetchItems(sim.url, `m=getogs&pu=${pu}`);
  const paths = [
    'json?m=getpus',
    'json?m=getlocs',
    `json?m=getogs&pu=${pu}`,
    'json?m=getros&loc=3',
    'json?m=getros&loc=4',
    ...programs.flatMap((program) => [`json?m=getPgsExt&pu=${pu}&og=${program.id}`, `json?m=getles&og=${program.id}`]),
    ...[...sim.simulator.model.groups.keys()].map((pgid) => `ical?lan=de&puid=${pu}&type=pg&pgid=${pgid}`),
  ];
  return Promise.all(
    paths.map(async (path) => {
      const text = Buffer.from(await (await fetch(`${sim.url}/${path}`)).arrayBuffer()).toString('latin1');
      return text.replace(/^(UID|DTSTAMP):.*$/gm, '$1:-');
    }),
  );
}

describe('determinism', () => {
  let first: RunningSimulator;
  let second: RunningSimulator;
  let other: RunningSimulator;

  beforeAll(async () => {
    first = await startSimulator({ seed: 42, today: '2024-11-05' });
    second = await startSimulator({ seed: 42, today: '2024-11-05' });
    other = await startSimulator({ seed: 43, today: '2024-11-05' });
  });
  afterAll(async () => {
    await Promise.all([first.stop(), second.stop(), other.stop()]);
  });

  it('the same seed serves byte-identical data', async () => {
    const [a, b] = await Promise.all([servedUniversity(first), servedUniversity(second)]);
    expect(a.length).toBeGreaterThan(80);
    expect(a).toEqual(b);
  });

  it('another seed serves another university', async () => {
    const [a, c] = await Promise.all([servedUniversity(first), servedUniversity(other)]);
    expect(a).not.toEqual(c);
  });

  it('a term keeps its timetable when `today` moves to a neighbouring term', () => {
    const november = createSimulator({ seed: 42, today: '2024-11-05' }).model;
    const may = createSimulator({ seed: 42, today: '2025-05-05' }).model;
    const winter = november.planningUnits.find((unit) => unit.shortname === '2024 WS');
    expect(may.planningUnits.map((unit) => unit.id)).toContain(winter?.id);
    const days = (model: typeof may) => model.occurrencesOfTerm(winter?.id ?? 0).map((o) => `${o.lectureId}@${o.day} ${o.start}`);
    expect(days(may)).toEqual(days(november));
  });
});

describe('size', () => {
  it('the default university has about 12 programs of 6 groups, 300 lectures, 80 rooms, 150 lecturers', () => {
    const { model } = createSimulator({ seed: 1, today: '2024-03-20' });
    expect(model.programs.size).toBe(12);
    expect(model.groups.size).toBe(72);
    expect(model.lectures.size).toBe(300);
    expect(model.rooms.size).toBe(80);
    expect(model.lecturers.size).toBe(150);
    expect(model.locations.size).toBe(2);
  });

  it('scale multiplies the counts', () => {
    const { model } = createSimulator({ seed: 1, scale: 3, today: '2024-03-20' });
    expect(model.lectures.size).toBe(900);
    expect(model.groups.size).toBe(216);
    expect(new Set([...model.groups.values()].map((group) => group.shortname)).size).toBe(216);
    expect(new Set([...model.lectures.values()].map((lecture) => lecture.name)).size).toBe(900);
  });
});

describe('planning units around today', () => {
  it.each([
    ['2025-01-15', ['2025 SoSe', '2024 WS', '2024 SoSe']],
    ['2025-03-10', ['2025 WS', '2025 SoSe', '2024 WS']],
    ['2025-10-01', ['2026 SoSe', '2025 WS', '2025 SoSe']],
    ['2025-06-30T23:30:00Z', ['2025 WS', '2025 SoSe', '2024 WS']],
  ])('on %s', (today, shortnames) => {
    const { model } = createSimulator({ today });
    expect(model.planningUnits.map((unit) => unit.shortname)).toEqual(shortnames);
    expect(model.currentPlanningUnit.shortname).toBe(shortnames[1]);
  });

  it('defaults to the current date', () => {
    const { model, options } = createSimulator();
    const unit = model.currentPlanningUnit;
    expect(options.today >= unit.startdate && options.today <= unit.enddate).toBe(true);
  });
});
