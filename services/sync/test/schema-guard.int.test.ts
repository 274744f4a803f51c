/**
 * A value the entity schema would refuse never gets that far: the upstream record carrying it is refused at
 * the boundary (features/validate), before the schema guard (schema-guard.test.ts) would have to keep it out
 * of the outbox. A term whose start is no date is the run's planning unit here, so the run changes nothing.
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

describe('an upstream value that would break the entity schema', () => {
  it('is refused at the boundary: a run whose planning unit it is changes nothing, and the next one after the repair syncs', async () => {
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
    expect(result.status).toBe('failed');
    expect(result.errors).toEqual([expect.objectContaining({ errorMessage: `planning unit ${unit.id} (UPSTREAM_PU) was refused at the boundary` })]);
    expect(changes).toEqual([]);
    expect(await harness.snapshot('academicPeriod')).toEqual(periodsBefore);
    unit.startdate = startdate;
    harness.sim.simulator.modelChanged();
    const repaired = await harness.sync();
    expect(repaired.result.status).toBe('succeeded');
    // The rename made meanwhile: its course and the title of its events.
    const kinds = repaired.changes.map((change) => `${change.entityType} ${change.action}`);
    expect(kinds.filter((kind) => kind === 'course updated')).toHaveLength(1);
    expect(kinds.every((kind) => kind === 'course updated' || kind === 'event updated')).toBe(true);
  });
});
