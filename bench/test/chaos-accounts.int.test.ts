/**
 * The chaos soak's bookkeeping, without a system: how lost and duplicated are counted per sync run, and the
 * settings and rhythm a run gets. The soak itself runs in the fault matrix (`npm run test:faults`).
 */
import { describe, expect, it } from 'vitest';
import { RECORD_FAULTS } from '@timetable/starplan-sim';
import { compareRuns } from '../support/chaos-ledger.js';
import { chaosSettings, deck, OUTAGES, rhythm, seededRandom, SERVICES } from '../support/chaos-plan.js';

const run = (id: string, published: number) => ({ id, status: 'succeeded', published });
const record = (runId: string, entity: string) => ({ id: `${runId}-${entity}`, run: runId, entity });

describe('the accounts per sync run', () => {
  it('never lets a loss in one run and a duplicate in another cancel out', () => {
    const log = [record('a', 'course:1'), record('b', 'room:1'), record('b', 'room:2'), record('b', 'room:3')];
    expect(compareRuns([run('a', 2), run('b', 2)], log, 0)).toEqual({ lost: 1, duplicated: 1 });
  });

  it('counts a second record of one entity in one run, and records of no committed run, as duplicated', () => {
    const log = [record('a', 'course:1'), { ...record('a', 'course:1'), id: 'again' }];
    expect(compareRuns([run('a', 2)], log, 3)).toEqual({ lost: 0, duplicated: 4 });
  });

  it('finds nothing when every run has exactly its records', () => {
    expect(compareRuns([run('a', 1), run('b', 0)], [record('a', 'event:9')], 0)).toEqual({ lost: 0, duplicated: 0 });
  });
});

describe('the soak\'s settings', () => {
  it('runs 30 minutes unless CHAOS_MINUTES or --minutes (which wins) says otherwise', () => {
    expect(chaosSettings([], { CHAOS_SEED: '3' })).toEqual({ minutes: 30, seed: 3 });
    expect(chaosSettings([], { CHAOS_MINUTES: '2', CHAOS_SEED: '3' }).minutes).toBe(2);
    expect(chaosSettings(['--minutes', '0.5'], { CHAOS_MINUTES: '2', CHAOS_SEED: '3' }).minutes).toBe(0.5);
    expect(() => chaosSettings(['--minutes', 'soon'], {})).toThrow(/positive number/);
  });

  it('fits every fault kind into a one-minute run, and keeps the design\'s pace in a long one', () => {
    const short = rhythm(1);
    expect(Math.floor(60_000 / short.killEveryMs)).toBeGreaterThanOrEqual(4);
    expect(short.outages).toBe(OUTAGES.length);
    expect(Math.floor(60_000 / short.garbageEveryMs)).toBeGreaterThanOrEqual(RECORD_FAULTS.length);
    expect(rhythm(30)).toMatchObject({ killEveryMs: 120_000, outages: 6, outageMs: 60_000, garbageEveryMs: 10_000 });
  });

  it('deals every service once before any twice, the same way for the same seed', () => {
    const dealt = (seed: number) => {
      const next = deck(SERVICES, seededRandom(seed));
      return Array.from({ length: SERVICES.length * 2 }, next);
    };
    expect(new Set(dealt(7).slice(0, SERVICES.length)).size).toBe(SERVICES.length);
    expect(dealt(7)).toEqual(dealt(7));
  });
});
