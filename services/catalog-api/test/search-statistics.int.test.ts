import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogStatistics, SearchResults } from '@timetable/contracts';
import { startCatalog, stateOf, type CatalogHarness } from './support/catalog-harness.js';
import { ids, universityStates } from './support/university-fixture.js';

let catalog: CatalogHarness;
const EMPTY: SearchResults = { courses: [], rooms: [], instructors: [], programs: [] };

async function search(query: string): Promise<SearchResults> {
  const { status, body } = await catalog.json<{ data: SearchResults }>(`/search${query}`);
  expect(status).toBe(200);
  return body.data;
}

beforeAll(async () => {
  catalog = await startCatalog();
  await catalog.publish(universityStates);
});

afterAll(() => catalog.close());

describe('/statistics', () => {
  it('counts active programs only and every other kind unfiltered', async () => {
    const { status, body } = await catalog.json<{ data: CatalogStatistics }>('/statistics');
    expect(status).toBe(200);
    expect(body.data).toEqual({ programs: 2, semesters: 4, courses: 4, rooms: 3, instructors: 2, events: 8 });
  });
});

describe('/search', () => {
  it('returns four empty buckets when q has fewer than 2 characters or is missing', async () => {
    expect(await search('?q=m')).toEqual(EMPTY);
    expect(await search('?q=%20m%20')).toEqual(EMPTY);
    expect(await search('')).toEqual(EMPTY);
  });

  it('searches all four kinds without type: courses by name or code, programs by name or shortName, sorted by name', async () => {
    expect(await search('?q=ma')).toEqual({
      courses: [
        { id: ids.datenbanken, name: 'datenbanken', code: 'DB-MA' },
        { id: ids.mathe, name: 'Mathematik 1', code: 'MA1' },
      ],
      rooms: [],
      instructors: [],
      programs: [
        { id: ids.informatik, name: 'Informatik', shortName: 'INF', degreeType: 'Bachelor' },
        { id: ids.maschinenbau, name: 'Maschinenbau', shortName: 'MB', degreeType: 'Master' },
      ],
    });
    expect((await search('?q=mb')).programs.map((program) => program.name)).toEqual(['Maschinenbau']);
  });

  it('fills room and instructor buckets with their shapes', async () => {
    expect((await search('?q=HÖRS')).rooms).toEqual([{ id: ids.roomHoersaal, name: 'B 2.02, Hörsaal', building: 'B' }]);
    expect((await search('?q=schm')).instructors).toEqual([{ id: ids.schmidt, name: 'Dr. Schmidt', email: 'schmidt@example.edu' }]);
  });

  it('with type searches only that kind; the other buckets are empty arrays', async () => {
    expect(await search('?q=ma&type=program')).toEqual({ ...EMPTY, programs: (await search('?q=ma')).programs });
    expect(await search('?q=ma&type=room')).toEqual(EMPTY);
    expect((await search('?q=a 1&type=room')).rooms.map((room) => room.name)).toEqual(['A 1.01', 'A 1.02']);
  });

  it('answers 400 for an unknown type', async () => {
    const { status, body } = await catalog.json<{ error: { code: string } }>('/search?q=ma&type=building');
    expect(status).toBe(400);
    expect(body.error.code).toBe('VALIDATION_ERROR');
  });

  it('holds at most 20 results per bucket, the first 20 by name', async () => {
    const labs = Array.from({ length: 25 }, (_, index) => `Labor ${String(index + 1).padStart(2, '0')}`);
    await catalog.publish(
      labs.map((name) => stateOf({ type: 'room', data: { id: randomUUID(), name, building: 'L', campus: 'Süd', capacity: 12, tags: [], upstreamId: 9 } })),
    );
    expect((await search('?q=labor')).rooms.map((room) => room.name)).toEqual(labs.slice(0, 20));
  });
});
