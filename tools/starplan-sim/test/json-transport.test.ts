import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../src/index.js';
import { decodeResponse, fetchItems, fetchJson } from './support/starplan-client.js';

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ seed: 3, today: '2024-03-20' });
});
afterAll(() => sim.stop());

describe('JSON is ISO-8859-1', () => {
  it('declares the charset and sends one byte per umlaut', async () => {
    const response = await fetch(`${sim.url}/json?m=getlocs`);
    expect(response.headers.get('content-type')).toBe('application/json; charset=ISO-8859-1');
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.includes(Buffer.from([0xdc]))).toBe(true); // Ü
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes)).toThrow();
  });

  it('umlauts and ß survive when decoded by the declared charset', async () => {
    const { model } = sim.simulator;
    const ogId = [...model.programs.keys()][0];
    const groups = await fetchItems(sim.url, `m=getPgsExt&pu=${model.currentPuId}&og=${ogId}`);
    const served = groups.flatMap((group) => (group.lectures as { name: string }[]).map((lecture) => lecture.name));
    const expected = model.groupsOfProgram(ogId as number).flatMap((group) => model.lecturesOfGroup(group.id).map((l) => l.name));
    expect(served).toEqual(expected);
    const lecturers = await fetchItems(sim.url, `m=getles&og=${ogId}`);
    expect(lecturers.map((lecturer) => lecturer.name)).toEqual(model.lecturersOfProgram(ogId as number).map((l) => l.name));
  });

  it('the generated names use umlauts, ß and the characters StarPlan names contain', () => {
    const names = [...sim.simulator.model.lectures.values()].map((lecture) => lecture.name).join('\n');
    for (const character of ['ä', 'ö', 'ü', 'Ü', 'ß', '&', '/', ',']) expect(names).toContain(character);
  });
});

describe('errors are HTTP 200 with ["",[{"error":...}]]', () => {
  const queries = [
    'm=unknownMethod',
    '',
    'm=getogs',
    'm=getogs&pu=999999',
    'm=getPgsExt&pu=48',
    'm=getPgsExt&pu=48&og=1',
    'm=getros',
    'm=getros&loc=x',
    'm=getles',
  ];

  it.each(queries)('%s', async (query) => {
    const response = await fetch(`${sim.url}/json?${query}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=ISO-8859-1');
    const payload = JSON.parse(await decodeResponse(response)) as unknown;
    expect(payload).toEqual(['', [{ error: expect.any(String) }]]);
  });

  it('an unknown method is named in the error', async () => {
    const { body } = await fetchJson(sim.url, 'm=getFoo');
    expect(body).toEqual({ error: 'unknown method getFoo' });
  });
});

describe('lists', () => {
  it('getpus lists next, current and previous term, newest first', async () => {
    const units = await fetchItems(sim.url, 'm=getpus');
    expect(units.map((unit) => [unit.shortname, unit.startdate, unit.enddate])).toEqual([
      ['2024 WS', '2024-10-01', '2025-03-31'],
      ['2024 SoSe', '2024-03-01', '2024-09-30'],
      ['2023 WS', '2023-10-01', '2024-03-31'],
    ]);
    expect(units[1]?.id).toBe(sim.simulator.model.currentPuId);
  });

  it('getros lists the rooms of one campus with seats and building', async () => {
    const { model } = sim.simulator;
    const rooms = await fetchItems(sim.url, 'm=getros&loc=4');
    expect(rooms.length).toBeGreaterThan(0);
    for (const room of rooms) {
      expect(model.rooms.get(room.id as number)?.locationId).toBe(4);
      expect(room.bshortname).toBe(String(room.shortname).charAt(0));
    }
    const all = [...(await fetchItems(sim.url, 'm=getros&loc=3')), ...rooms];
    expect(all).toHaveLength(model.rooms.size);
  });

  it('getogs lists bachelor, master and other programs', async () => {
    const programs = await fetchItems(sim.url, `m=getogs&pu=${sim.simulator.model.currentPuId}`);
    const names = programs.map((program) => String(program.name));
    expect(names).toContain('Bachelorstudiengang Informatik');
    expect(names.some((name) => name.startsWith('Masterstudiengang '))).toBe(true);
    expect(names.some((name) => !/^(Bachelor|Master)studiengang /.test(name))).toBe(true);
  });
});

describe('no cache validators, like the real StarPlan', () => {
  it('sends neither ETag nor Last-Modified and answers a conditional request in full', async () => {
    const { model } = sim.simulator;
    const pgid = [...model.groups.keys()][0];
    for (const query of ['json?m=getpus', `json?m=getogs&pu=${model.currentPuId}`, `ical?lan=de&puid=${model.currentPuId}&type=pg&pgid=${pgid}`]) {
      const response = await fetch(`${sim.url}/${query}`, { headers: { 'If-None-Match': '*', 'If-Modified-Since': new Date().toUTCString() } });
      expect(response.status, query).toBe(200);
      expect(response.headers.get('etag'), query).toBeNull();
      expect(response.headers.get('last-modified'), query).toBeNull();
      expect((await response.arrayBuffer()).byteLength, query).toBeGreaterThan(0);
    }
  });
});
