import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { courseIdOf, instructorIdOf, roomIdOf, semesterIdOf } from '../src/testing/index.js';
import { createSyncHarness, type SyncHarness } from './sync-harness.js';

let harness: SyncHarness;

beforeAll(async () => {
  harness = await createSyncHarness();
});
afterAll(async () => {
  await harness.close();
});

const summary = (changes: { entityType: string; action: string }[]) => {
  const counts: Record<string, number> = {};
  for (const change of changes) counts[`${change.entityType}.${change.action}`] = (counts[`${change.entityType}.${change.action}`] ?? 0) + 1;
  return counts;
};

describe('the first sync', () => {
  it('emits one created change and one entity state per entity', async () => {
    const { result, changes } = await harness.sync();
    const snapshot = await harness.snapshot();
    expect(result.status).toBe('succeeded');
    expect(changes.length).toBe(snapshot.length);
    expect(changes.every((change) => change.action === 'created' && change.previousData === null && change.changedFields.length === 0)).toBe(true);
    expect(new Set(changes.map((change) => `${change.entityType}:${change.entityId}`)).size).toBe(snapshot.length);
    expect(harness.states.filter((state) => state.value !== null)).toHaveLength(snapshot.length);
    for (const type of ['program', 'semester', 'academicPeriod', 'course', 'room', 'instructor', 'event']) {
      expect(snapshot.some((row) => row.entity_type === type)).toBe(true);
    }
  });

  it('carries the ids of what each change belongs to', async () => {
    const changes = harness.changes.map((event) => event.value!);
    const event = changes.find((change) => change.entityType === 'event')!;
    expect(event).toMatchObject({ programId: event.newData!.programId, semesterId: event.newData!.semesterId, courseId: event.newData!.courseId });
    const semester = changes.find((change) => change.entityType === 'semester')!;
    expect([semester.programId, semester.semesterId]).toEqual([semester.newData!.programId, semester.entityId]);
    const room = changes.find((change) => change.entityType === 'room')!;
    expect([room.roomId, room.programId]).toEqual([room.entityId, null]);
    const key = harness.changes.find((candidate) => candidate.value?.id === event.id)!;
    expect(key.key).toBe(`event:${event.entityId}`);
    expect(key.headers).toMatchObject({ ce_specversion: '1.0', ce_id: event.id, ce_type: 'timetable.event.created', ce_source: '/timetable/sync' });
  });

  it('mirrors the simulator feeds exactly: expanding the events gives back every occurrence', async () => {
    const { expandSeries, instantToLocal } = await import('@timetable/calendar');
    const model = harness.sim.simulator.model;
    const events = (await harness.snapshot('event')).map((row) => row.data);
    for (const group of [...model.groups.values()].slice(0, 6)) {
      const expected = harness.sim.simulator.expectedOccurrences(model.currentPuId, group.id).map((occurrence) => `${occurrence.start}|${occurrence.lectureId}`).sort();
      const actual = events
        .filter((event) => event.semesterId === semesterIdOf(group.id))
        .flatMap((event) =>
          expandSeries(event as never, 'Europe/Berlin').map((occurrence) => `${instantToLocal(occurrence.start, 'Europe/Berlin')}|${String(event.courseId)}`),
        )
        .sort();
      expect(actual).toEqual(expected.map((entry) => entry.replace(/\|(\d+)$/, (_match, id: string) => `|${courseIdOf(Number(id))}`)).sort());
    }
  });
});

describe('an unchanged upstream', () => {
  it('emits nothing on the second sync', async () => {
    const { result, changes } = await harness.sync();
    expect(result).toMatchObject({ status: 'succeeded', created: 0, updated: 0, deleted: 0 });
    expect(changes).toEqual([]);
  });
});

describe('churn', () => {
  it('a renamed lecture updates the course name and the title of its events, nothing else', async () => {
    const lecture = [...harness.sim.simulator.model.lectures.values()][0]!;
    harness.sim.simulator.renameLecture({ lectureId: lecture.id, name: `${lecture.name} (neu)` });
    const courseId = courseIdOf(lecture.id);
    const eventIds = (await harness.snapshot('event')).filter((row) => row.data.courseId === courseId).map((row) => row.entity_id).sort();
    const { changes } = await harness.sync();
    expect(changes.filter((change) => change.entityType === 'course')).toEqual([
      expect.objectContaining({ entityId: courseId, action: 'updated', changedFields: ['name'], courseId }),
    ]);
    const events = changes.filter((change) => change.entityType === 'event');
    expect(events.map((change) => change.entityId).sort()).toEqual(eventIds);
    expect(events.every((change) => change.action === 'updated' && change.changedFields.join() === 'title' && change.courseId === courseId)).toBe(true);
    expect(changes).toHaveLength(eventIds.length + 1);
  });

  it('a renamed room updates the room and the location of its events', async () => {
    const events = await harness.snapshot('event');
    const used = events.find((row) => (row.data.roomIds as string[]).length === 1)!;
    const roomId = (used.data.roomIds as string[])[0]!;
    const room = [...harness.sim.simulator.model.rooms.values()].find((candidate) => roomIdOf(candidate.id) === roomId)!;
    harness.sim.simulator.renameRoom({ roomId: room.id, shortname: `${room.shortname}x` });
    const affected = events.filter((row) => (row.data.roomIds as string[]).includes(roomId)).map((row) => row.entity_id).sort();
    const { changes } = await harness.sync();
    expect(changes.filter((change) => change.entityType === 'room')).toEqual([
      expect.objectContaining({ entityId: roomId, action: 'updated', changedFields: ['name'], roomId }),
    ]);
    const updatedEvents = changes.filter((change) => change.entityType === 'event');
    expect(updatedEvents.map((change) => change.entityId).sort()).toEqual(affected);
    expect(updatedEvents.every((change) => change.changedFields.join() === 'location')).toBe(true);
    expect(changes).toHaveLength(affected.length + 1);
  });

  it('a new lecturer is one created instructor', async () => {
    const program = [...harness.sim.simulator.model.programs.values()][0]!;
    const lecturer = harness.sim.simulator.addLecturer({ ogIds: [program.id], title: 'Dr.', firstname: 'Jörg', name: 'Weiß' });
    const { changes } = await harness.sync();
    expect(changes).toEqual([
      expect.objectContaining({ entityType: 'instructor', entityId: instructorIdOf(lecturer.id), action: 'created', instructorId: instructorIdOf(lecturer.id) }),
    ]);
    expect(changes[0]?.newData).toMatchObject({ name: 'Dr. Jörg Weiß' });
  });

  it('a cancelled occurrence changes only events of its course, and the mirror still matches the feed', async () => {
    const { simulator } = harness.sim;
    const model = simulator.model;
    const lecture = [...model.lectures.values()][3]!;
    const occurrences = model.occurrencesOfLecture(model.currentPuId, lecture.id).filter((occurrence) => !occurrence.cancelled);
    const middle = occurrences[Math.floor(occurrences.length / 2)]!;
    simulator.cancelOccurrence({ occurrenceId: middle.id });
    const { changes } = await harness.sync();
    expect(changes.length).toBeGreaterThan(0);
    expect(changes.every((change) => change.entityType === 'event' && change.courseId === courseIdOf(lecture.id))).toBe(true);
    const states = new Map(harness.states.map((state) => [state.key, state.value]));
    const snapshot = await harness.snapshot('event');
    for (const row of snapshot) expect(states.get(`event:${row.entity_id}`)?.data).toEqual(row.data);
  });

  it('a vanished group deletes its semester, period, own courses and events; a new group creates them', async () => {
    const { simulator } = harness.sim;
    const group = [...simulator.model.groups.values()].at(-1)!;
    const ownLectures = [...simulator.model.lectures.values()].filter((lecture) => lecture.pgid === group.id).map((lecture) => courseIdOf(lecture.id));
    simulator.removeGroup({ pgid: group.id });
    const removed = await harness.sync();
    const deleted = removed.changes.filter((change) => change.action === 'deleted');
    expect(deleted).toHaveLength(removed.changes.length);
    expect(deleted.filter((change) => change.entityType === 'semester').map((change) => change.entityId)).toEqual([semesterIdOf(group.id)]);
    expect(deleted.filter((change) => change.entityType === 'academicPeriod')).toHaveLength(1);
    expect(deleted.filter((change) => change.entityType === 'course').map((change) => change.entityId).sort()).toEqual(ownLectures.sort());
    expect(harness.states.filter((state) => state.key === `semester:${semesterIdOf(group.id)}`).at(-1)?.value).toBeNull();

    const added = simulator.addGroup({ ogId: group.ogId, seed: 99 });
    const { changes } = await harness.sync();
    expect(summary(changes)).toMatchObject({ 'semester.created': 1, 'academicPeriod.created': 1, 'course.created': 3 });
    expect(changes.filter((change) => change.entityType === 'event').every((change) => change.action === 'created' && change.semesterId === semesterIdOf(added.id))).toBe(true);
    expect(changes.every((change) => change.action === 'created')).toBe(true);
  });
});

describe('the safety valve', () => {
  const cancelOneInEveryGroup = (harnessed: SyncHarness) => {
    const model = harnessed.sim.simulator.model;
    for (const group of model.groups.values()) {
      const candidates = model.occurrencesOfGroup(model.currentPuId, group.id).filter((occurrence) => !occurrence.cancelled);
      const victim = candidates[Math.floor(candidates.length / 2)];
      if (victim) harnessed.sim.simulator.cancelOccurrence({ occurrenceId: victim.id });
    }
  };

  for (const failure of ['error', 'empty'] as const) {
    it(`a group feed answered with ${failure} keeps that pair unchanged and reports it`, async () => {
      cancelOneInEveryGroup(harness);
      harness.sim.simulator.misbehave('ical', { failure, times: 1 });
      const { result, changes } = await harness.sync();
      expect(result.status).toBe('partial');
      expect(result.errors).toHaveLength(1);
      const failed = result.errors[0]!;
      expect(failed.programId).toEqual(expect.any(String));
      expect(failed.semesterId).toEqual(expect.any(String));
      expect(changes.some((change) => change.semesterId === failed.semesterId)).toBe(false);
      expect(new Set(changes.map((change) => change.semesterId)).size).toBeGreaterThan(1);
      const recovered = await harness.sync();
      expect(recovered.result.status).toBe('succeeded');
      expect(recovered.changes.some((change) => change.semesterId === failed.semesterId)).toBe(true);
    });
  }

  it('a failing global list aborts the run without changes', async () => {
    harness.sim.simulator.renameLecture({ lectureId: [...harness.sim.simulator.model.lectures.keys()][1]!, name: 'Umbenannt' });
    harness.sim.simulator.misbehave('getogs', { failure: 'http500' });
    const { result, changes } = await harness.sync();
    harness.sim.simulator.clearMisbehaviour();
    expect(result.status).toBe('failed');
    expect(result.errors[0]).toMatchObject({ programId: null, semesterId: null, errorMessage: expect.stringMatching(/HTTP 500/) });
    expect(changes).toEqual([]);
    const next = await harness.sync();
    expect(next.changes.filter((change) => change.entityType === 'course')).toHaveLength(1);
  });
});

describe('values the store would refuse, and garbage', () => {
  it('a lecture named with a NUL and lone surrogates syncs cleaned; the run succeeds and the next finds nothing new', async () => {
    const lecture = [...harness.sim.simulator.model.lectures.values()][5]!;
    harness.sim.simulator.renameLecture({ lectureId: lecture.id, name: 'Ana\u0000lysis \ud800 2\udc00' });
    const { result, changes } = await harness.sync();
    expect(result).toMatchObject({ status: 'succeeded', errors: [] });
    const course = changes.find((change) => change.entityType === 'course');
    expect(course).toMatchObject({ entityId: courseIdOf(lecture.id), action: 'updated' });
    expect(course?.newData).toMatchObject({ name: 'Analysis \ufffd 2\ufffd' });
    const again = await harness.sync();
    expect(again.result.status).toBe('succeeded');
    expect(again.changes).toEqual([]);
  });

  it('garbage bytes from every group feed fail each pair alone and change none of their events; the next run recovers', async () => {
    const lecture = [...harness.sim.simulator.model.lectures.values()][6]!;
    const occurrence = harness.sim.simulator.model.occurrencesOfLecture(harness.sim.simulator.model.currentPuId, lecture.id).find((candidate) => !candidate.cancelled)!;
    harness.sim.simulator.cancelOccurrence({ occurrenceId: occurrence.id });
    harness.sim.simulator.misbehave('ical', { failure: 'garbage' });
    const { result, changes } = await harness.sync();
    harness.sim.simulator.clearMisbehaviour();
    expect(result.status).not.toBe('succeeded');
    expect(result.errors.length).toBeGreaterThan(0);
    expect(result.errors.every((error) => error.semesterId !== null && error.programId !== null)).toBe(true);
    expect(changes.filter((change) => change.entityType === 'event')).toEqual([]);
    const recovered = await harness.sync();
    expect(recovered.result.status).toBe('succeeded');
    expect(recovered.changes.some((change) => change.entityType === 'event' && change.courseId === courseIdOf(lecture.id))).toBe(true);
  });
});

describe('a restart between the snapshot commit and the publish', () => {
  it('loses and duplicates nothing downstream', async () => {
    harness.sim.simulator.churn(5, 8);
    const before = await harness.service();
    const result = await before.runOnce(); // committed; the relay never ran (the process "died")
    const backlog = await before.relay.backlog();
    expect(backlog).toBe((result.created + result.updated + result.deleted) * 2);
    const after = await harness.service();
    await after.relay.drain();
    await before.relay.drain();
    const ids = harness.changes.filter((event) => event.value?.syncRunId === result.syncRunId).map((event) => event.value!.id);
    expect(ids).toHaveLength(result.created + result.updated + result.deleted);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('two replicas', () => {
  it('never sync at the same time: the second one skips while the first holds the lock', async () => {
    const [first, second] = await Promise.all([harness.service(), harness.service()]);
    const results = await Promise.all([first.runOnce(), second.runOnce()]);
    expect(results.map((result) => result.status).sort()).toEqual(['skipped', 'succeeded']);
    await first.relay.drain();
  });
});
