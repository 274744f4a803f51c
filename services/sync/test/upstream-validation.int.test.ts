import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { courseIdOf, programIdOf, roomIdOf, semesterIdOf } from '../src/testing/index.js';
import { upstreamRecordsRejected } from '../src/features/validate/metrics.js';
import { createSyncHarness, lectureOfOneGroup, type SyncHarness } from './sync-harness.js';

let harness: SyncHarness;

beforeAll(async () => {
  harness = await createSyncHarness(11);
  expect((await harness.sync()).result.status).toBe('succeeded');
});
afterAll(async () => {
  await harness.close();
});
beforeEach(() => harness.sim.simulator.clearMisbehaviour());

const counted = async (kind: string, reason: string) =>
  (await upstreamRecordsRejected.get()).values.find((value) => value.labels.kind === kind && value.labels.reason === reason)?.value ?? 0;
const model = () => harness.sim.simulator.model;

describe('a record the mirror cannot interpret, among good ones', () => {
  it('a VEVENT on 30 February is left out, counted and logged with its pair; a room capacity changed meanwhile arrives', async () => {
    const { lectureId, pgid, occurrence } = lectureOfOneGroup(harness);
    const room = [...model().rooms.values()][0]!;
    room.seats += 7;
    harness.sim.simulator.modelChanged();
    harness.sim.simulator.misbehave('ical', { faults: [{ fault: 'impossible_date', recordId: occurrence.id }] });
    const before = await counted('event', 'impossible_date');
    const { result, changes } = await harness.sync();
    expect(result).toMatchObject({ status: 'succeeded', errors: [] });
    expect(changes.filter((change) => change.entityType === 'room')).toEqual([
      expect.objectContaining({ entityId: roomIdOf(room.id), action: 'updated', changedFields: ['capacity'], newData: expect.objectContaining({ capacity: room.seats }) }),
    ]);
    // The occurrence is missing from its series; nothing but events of its course changes with it.
    const events = changes.filter((change) => change.entityType === 'event');
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((change) => change.courseId === courseIdOf(lectureId))).toBe(true);
    expect(await counted('event', 'impossible_date')).toBe(before + 1);
    const group = model().groups.get(pgid)!;
    expect(harness.logs().filter((line) => line.msg === 'upstream record refused at the boundary' && line.reason === 'impossible_date').at(-1)).toMatchObject({
      og: group.ogId,
      pgid,
      kind: 'event',
      detail: expect.stringContaining('0230T'),
    });
    expect((await harness.sync()).changes).toEqual([]);
  });

  it('a VEVENT whose TZID is a Windows zone name mirrors as the same one in Europe/Berlin: nothing changes', async () => {
    const { occurrence } = lectureOfOneGroup(harness);
    await harness.sync();
    harness.sim.simulator.misbehave('ical', { faults: [{ fault: 'windows_zone', recordId: occurrence.id }] });
    const { result, changes } = await harness.sync();
    expect(result).toMatchObject({ status: 'succeeded', feedsParsed: expect.any(Number) });
    expect(result.feedsParsed).toBeGreaterThan(0);
    expect(changes).toEqual([]);
  });

  it('a room of 3,000,000,000 seats never reaches a change record: the room is left out, the run commits', async () => {
    const room = [...model().rooms.values()][1]!;
    harness.sim.simulator.misbehave('getros', { faults: [{ fault: 'huge_number', recordId: room.id }] });
    const { result, changes } = await harness.sync();
    expect(result.status).toBe('succeeded');
    expect(changes.some((change) => change.newData?.capacity === 3_000_000_000)).toBe(false);
    expect(changes.find((change) => change.entityType === 'room')).toMatchObject({ entityId: roomIdOf(room.id), action: 'deleted' });
    harness.sim.simulator.clearMisbehaviour();
    expect((await harness.sync()).changes.find((change) => change.entityType === 'room')).toMatchObject({ entityId: roomIdOf(room.id), action: 'created' });
  });
});

describe('the safety valve against refusals', () => {
  it('a feed whose VEVENTs are mostly refused keeps its pair as it was: no mass delete', async () => {
    const { pgid } = lectureOfOneGroup(harness);
    const occurrences = harness.sim.simulator.expectedOccurrences(model().currentPuId, pgid);
    const garbled = occurrences.slice(0, Math.ceil(occurrences.length * 0.6));
    harness.sim.simulator.misbehave('ical', { faults: garbled.map((entry) => ({ fault: 'impossible_time' as const, recordId: entry.occurrenceId })) });
    const { result, changes } = await harness.sync();
    expect(result.status).toBe('partial');
    expect(result.errors).toEqual([expect.objectContaining({ semesterId: semesterIdOf(pgid), errorMessage: expect.stringMatching(/events of the feed refused/) })]);
    expect(changes.filter((change) => change.semesterId === semesterIdOf(pgid))).toEqual([]);
  });

  it('a refused program keeps everything it had, itself included (not deactivated)', async () => {
    const program = [...model().programs.values()][0]!;
    harness.sim.simulator.misbehave('getogs', { faults: [{ fault: 'huge_string', recordId: program.id }] });
    const { result, changes } = await harness.sync();
    expect(result.status).toBe('partial');
    expect(result.errors).toEqual([expect.objectContaining({ programId: programIdOf(program.id), semesterId: null })]);
    expect(changes.filter((change) => change.programId === programIdOf(program.id) || change.entityId === programIdOf(program.id))).toEqual([]);
  });

  it('answers larger than UPSTREAM_MAX_BODY_BYTES fail their pairs, each alone, and change nothing', async () => {
    // A limit of 1 MiB, far above a feed of this university, and feeds padded past it.
    const limited = await harness.service(undefined, { maxBodyBytes: 2 ** 20 });
    harness.sim.simulator.misbehave('ical', { faults: [{ fault: 'oversized', bytes: 2 ** 20 + 1 }] });
    const { result, changes } = await harness.sync(limited);
    expect(result.status).toBe('partial');
    expect(result.errors.length).toBeGreaterThan(1);
    expect(result.errors.every((error) => error.semesterId !== null && /answer too large/.test(error.errorMessage))).toBe(true);
    expect(changes).toEqual([]);
  });
});
