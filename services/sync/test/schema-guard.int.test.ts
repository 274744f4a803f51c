/**
 * A value the entity schema refuses never enters the outbox (it would hold up every later message there):
 * the entity keeps its previous version, the run reports it, and everything else is synced as usual.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSyncHarness, type SyncHarness } from './sync-harness.js';

let harness: SyncHarness;

beforeAll(async () => {
  harness = await createSyncHarness(5);
});
afterAll(async () => {
  await harness.close();
});

describe('an upstream value that breaks the entity schema', () => {
  it('keeps the entity at its previous version and reports the run as partial, syncing everything else', async () => {
    const first = await harness.sync();
    expect(first.result.status).toBe('succeeded');
    const periodsBefore = await harness.snapshot('academicPeriod');
    const unit = harness.sim.simulator.model.currentPlanningUnit;
    const startdate = unit.startdate;
    // A term start the upstream contract does not allow (dates are YYYY-MM-DD), next to an ordinary rename.
    unit.startdate = '1. Oktober';
    harness.sim.simulator.modelChanged();
    harness.sim.simulator.renameLecture({ lectureId: [...harness.sim.simulator.model.lectures.keys()][0]!, name: 'Neu benannt' });
    const { result, changes } = await harness.sync();
    expect(result.status).toBe('partial');
    expect(result.errors.length).toBe(periodsBefore.length);
    expect(result.errors[0]?.errorMessage).toMatch(/^academicPeriod \S+ does not match the timetable.entities.v1 schema: .*startDate/);
    expect(result.errors.every((error) => error.programId !== null && error.semesterId !== null)).toBe(true);
    expect(changes.some((change) => change.entityType === 'academicPeriod')).toBe(false);
    expect(changes.some((change) => change.entityType === 'course' && change.action === 'updated')).toBe(true);
    expect(await harness.snapshot('academicPeriod')).toEqual(periodsBefore);
    unit.startdate = startdate;
    harness.sim.simulator.modelChanged();
    const repaired = await harness.sync();
    expect(repaired.result.status).toBe('succeeded');
    expect(repaired.changes).toEqual([]);
  });
});
