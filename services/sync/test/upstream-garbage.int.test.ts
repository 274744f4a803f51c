/**
 * Random garbage in random records of a simulated university: every clean change still arrives exactly once.
 * Two mirrors of the same university take the same clean churn; one of them also reads garbage (records the
 * mirror cannot interpret, through the simulator's faults). Its change records must be the clean mirror's,
 * but for the entities the garbled records touch; no run fails; a second run adds nothing; and once the
 * garbage is gone both mirrors hold the same snapshot.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEvent } from '@timetable/contracts';
import { createSyncHarness, type SyncHarness } from './sync-harness.js';
import { garbageArbitrary, injectGarbage, keyOf, touchedBy } from './support/garbage-plan.js';

const SEED = 5;
let dirty: SyncHarness;
let clean: SyncHarness;

beforeAll(async () => {
  [dirty, clean] = await Promise.all([createSyncHarness(SEED), createSyncHarness(SEED)]);
  for (const harness of [dirty, clean]) expect((await harness.sync()).result.status).toBe('succeeded');
}, 120_000);
afterAll(async () => {
  await Promise.all([dirty?.close(), clean?.close()]);
});

const snapshotOf = async (harness: SyncHarness) =>
  new Map((await harness.snapshot()).map((row) => [`${row.entity_type}:${row.entity_id}`, row.data]));

describe('garbage in random records of the upstream', () => {
  it('never fails a run, and every clean change arrives exactly once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: 6 }), garbageArbitrary, async (churnSeed, churnCount, garbage) => {
        for (const harness of [dirty, clean]) harness.sim.simulator.churn(churnSeed, churnCount);
        const before = await dirty.snapshot();
        const targets = injectGarbage(dirty.sim.simulator, garbage);
        const first = await dirty.sync();
        const second = await dirty.sync();
        const reference = await clean.sync();
        const runs = [first.result, second.result];
        expect(runs.map((run) => run.status)).not.toContain('failed');
        expect(second.changes).toEqual([]);

        const failed = {
          programIds: first.result.errors.flatMap((error) => (error.semesterId === null && error.programId ? [error.programId] : [])),
          semesterIds: first.result.errors.flatMap((error) => (error.semesterId ? [error.semesterId] : [])),
        };
        const built = first.changes.flatMap((change) => (change.newData ? [{ entity_type: change.entityType, entity_id: change.entityId, data: change.newData }] : []));
        const touched = touchedBy(targets, [...before, ...(await clean.snapshot()), ...built], failed);
        const arrived = new Map<string, ChangeEvent[]>();
        for (const change of first.changes) arrived.set(keyOf(change), [...(arrived.get(keyOf(change)) ?? []), change]);
        for (const expected of reference.changes.filter((change) => !touched.has(keyOf(change)))) {
          const got = arrived.get(keyOf(expected)) ?? [];
          expect(got.map(({ action, newData }) => ({ action, newData })), keyOf(expected)).toEqual([{ action: expected.action, newData: expected.newData }]);
        }
        const expectedKeys = new Set(reference.changes.map(keyOf));
        const unexplained = first.changes.filter((change) => !expectedKeys.has(keyOf(change)) && !touched.has(keyOf(change)));
        expect(unexplained.map(keyOf), JSON.stringify(targets)).toEqual([]);

        dirty.sim.simulator.clearMisbehaviour();
        expect((await dirty.sync()).result.status).toBe('succeeded');
        expect(await snapshotOf(dirty)).toEqual(await snapshotOf(clean));
      }),
      { numRuns: 4, seed: 49, endOnFailure: true },
    );
  }, 900_000);
});
