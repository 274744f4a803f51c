/**
 * Garbage for the property test: faults put into chosen records of a simulated university (through the
 * simulator's misbehaviour), and which entities each fault may touch in the mirror.
 */
import type { ChangeEvent } from '@timetable/contracts';
import type { RecordFault, RecordFaultName, Simulator } from '@timetable/starplan-sim';
import fc from 'fast-check';
import { courseIdOf, instructorIdOf, roomIdOf } from '../../src/testing/index.js';

export type GarbledKind = 'room' | 'lecturer' | 'lecture' | 'event';

export interface Garbage {
  kind: GarbledKind;
  fault: RecordFaultName;
  /** Picks the record among those of its kind (modulo their number). */
  pick: number;
}

const FAULTS: Record<GarbledKind, RecordFaultName[]> = {
  room: ['huge_number', 'huge_string'],
  lecturer: ['huge_number', 'huge_string'],
  lecture: ['huge_number', 'huge_string'],
  event: ['impossible_date', 'impossible_time', 'unknown_zone', 'windows_zone', 'end_before_start', 'huge_number', 'huge_string'],
};
const REQUEST_KIND: Record<GarbledKind, string> = { room: 'getros', lecturer: 'getles', lecture: 'getPgsExt', event: 'ical' };

export const garbageArbitrary: fc.Arbitrary<Garbage[]> = fc.array(
  fc.constantFrom<GarbledKind>('room', 'lecturer', 'lecture', 'event').chain((kind) =>
    fc.record({ kind: fc.constant(kind), fault: fc.constantFrom(...FAULTS[kind]), pick: fc.nat() }),
  ),
  { minLength: 1, maxLength: 5 },
);

/** A garbled record: its kind, the upstream id and the lecture its events belong to (for an occurrence). */
interface Target {
  kind: GarbledKind;
  id: number;
  fault: RecordFaultName;
  lectureId?: number;
}

/** Puts the garbage into the simulator (one misbehaviour per request kind) and returns what it garbled. */
export function injectGarbage(simulator: Simulator, garbage: readonly Garbage[]): Target[] {
  const { model } = simulator;
  const occurrences = model.occurrencesOfTerm(model.currentPuId).filter((occurrence) => !occurrence.cancelled).sort((a, b) => a.id - b.id);
  const ids: Record<GarbledKind, number[]> = {
    room: [...model.rooms.keys()].sort((a, b) => a - b),
    lecturer: [...model.lecturers.keys()].sort((a, b) => a - b),
    lecture: [...model.lectures.keys()].sort((a, b) => a - b),
    event: occurrences.map((occurrence) => occurrence.id),
  };
  const targets = garbage.map(({ kind, fault, pick }): Target => {
    const id = ids[kind][pick % ids[kind].length]!;
    return kind === 'event' ? { kind, id, fault, lectureId: model.occurrence(id)!.lectureId } : { kind, id, fault };
  });
  for (const kind of Object.keys(REQUEST_KIND) as GarbledKind[]) {
    const faults: RecordFault[] = targets.filter((target) => target.kind === kind).map(({ fault, id }) => ({ fault, recordId: id }));
    if (faults.length > 0) simulator.misbehave(REQUEST_KIND[kind], { faults });
  }
  return targets;
}

export type SnapshotRow = { entity_type: string; entity_id: string; data: Record<string, unknown> };

/**
 * The entities a garbled record may change: itself, and the events that name it (a room or lecturer) or that
 * belong to its lecture (a lecture, an occurrence), with every event of the same course in the same group
 * (an event's id names its rooms and lecturers, so one that loses a lecturer is a new event). A Windows zone
 * name is no garbage: it touches nothing. A pair or program that failed keeps everything of it, which may
 * hold back its clean changes too.
 */
export function touchedBy(targets: readonly Target[], rows: readonly SnapshotRow[], failed: { programIds: string[]; semesterIds: string[] }): Set<string> {
  const touched = new Set<string>();
  const add = (type: string, id: string) => touched.add(`${type}:${id}`);
  for (const target of targets) {
    if (target.fault === 'windows_zone') continue;
    const [type, id, field] = entityOf(target);
    add(type, id);
    for (const row of rows) {
      if (row.entity_type !== 'event') continue;
      const named = field === 'courseId' ? row.data.courseId === id : (row.data[field] as string[]).includes(id);
      if (named) add('event', row.entity_id);
    }
  }
  const series = new Set(rows.filter((row) => row.entity_type === 'event' && touched.has(`event:${row.entity_id}`)).map(seriesOf));
  for (const row of rows) if (row.entity_type === 'event' && series.has(seriesOf(row))) add('event', row.entity_id);
  for (const row of rows) {
    const { programId, semesterId } = row.data as { programId?: string; semesterId?: string };
    if ((programId && failed.programIds.includes(programId)) || (semesterId && failed.semesterIds.includes(semesterId))) add(row.entity_type, row.entity_id);
    if (failed.programIds.length > 0 && row.entity_type === 'instructor') add(row.entity_type, row.entity_id);
  }
  return touched;
}

const seriesOf = (row: SnapshotRow) => `${String(row.data.courseId)}|${String(row.data.semesterId)}`;

function entityOf(target: Target): [string, string, 'roomIds' | 'instructorIds' | 'courseId'] {
  if (target.kind === 'room') return ['room', roomIdOf(target.id), 'roomIds'];
  if (target.kind === 'lecturer') return ['instructor', instructorIdOf(target.id), 'instructorIds'];
  return ['course', courseIdOf(target.lectureId ?? target.id), 'courseId'];
}

export const keyOf = (change: Pick<ChangeEvent, 'entityType' | 'entityId'>) => `${change.entityType}:${change.entityId}`;
