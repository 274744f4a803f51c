/** A seeded random mix of changes in the current term: what a week of timetable edits looks like. */
import { formatDay, mondayOf } from '../generate/day-number.js';
import { Random } from '../generate/random.js';
import { SLOTS } from '../generate/schedule-group.js';
import { FIRST_NAMES, SURNAMES, TITLES } from '../generate/vocabulary.js';
import type { UniversityModel } from '../model/university-model.js';
import { addGroup } from './add-group.js';
import {
  addLecturer,
  addOccurrence,
  cancelOccurrence,
  moveRoom,
  removeGroup,
  renameLecture,
  renameRoom,
} from './operations.js';

export interface ChurnRecord {
  op: string;
  args: Record<string, unknown>;
}

type Change = (model: UniversityModel, random: Random) => ChurnRecord | undefined;

const CHANGES: readonly [weight: number, change: Change][] = [
  [3, (model, random) => withOccurrence(model, random, (occurrenceId) => {
    const roomIds = [random.pick([...model.rooms.keys()])];
    moveRoom(model, { occurrenceId, roomIds });
    return { op: 'moveRoom', args: { occurrenceId, roomIds } };
  })],
  [3, (model, random) => withOccurrence(model, random, (occurrenceId) => {
    cancelOccurrence(model, { occurrenceId });
    return { op: 'cancelOccurrence', args: { occurrenceId } };
  })],
  [2, (model, random) => withOccurrence(model, random, (occurrenceId) => {
    const template = model.occurrence(occurrenceId);
    if (!template) return undefined;
    const unit = model.currentPlanningUnit;
    const monday = mondayOf(unit.lectureStart) + 7 * random.int(0, Math.floor((unit.lectureEnd - unit.lectureStart) / 7));
    const date = formatDay(Math.min(Math.max(monday + random.int(0, 4), unit.lectureStart), unit.lectureEnd));
    const [start, end] = random.pick(SLOTS);
    const args = { lectureId: template.lectureId, puId: unit.id, date, start, end, roomIds: template.roomIds, note: 'Zusatztermin' };
    addOccurrence(model, args);
    return { op: 'addOccurrence', args };
  })],
  [1, (model, random) => {
    const lecture = random.pick([...model.lectures.values()]);
    const args = { lectureId: lecture.id, name: `${lecture.name} (geändert)` };
    renameLecture(model, args);
    return { op: 'renameLecture', args };
  }],
  [1, (model, random) => {
    const room = random.pick([...model.rooms.values()]);
    const args = { roomId: room.id, shortname: `${room.shortname}a` };
    renameRoom(model, args);
    return { op: 'renameRoom', args };
  }],
  [1, (model, random) => {
    const args = {
      ogIds: [random.pick([...model.programs.keys()])],
      title: random.pick(TITLES),
      firstname: random.pick(FIRST_NAMES),
      name: `${random.pick(SURNAMES)}-${random.pick(SURNAMES)}`,
    };
    addLecturer(model, args);
    return { op: 'addLecturer', args };
  }],
  [0.5, (model, random) => {
    const args = { ogId: random.pick([...model.programs.keys()]), seed: random.int(1, 2 ** 30) };
    addGroup(model, args);
    return { op: 'addGroup', args };
  }],
  [0.5, (model, random) => {
    if (model.groups.size <= 1) return undefined;
    const args = { pgid: random.pick([...model.groups.keys()]) };
    removeGroup(model, args);
    return { op: 'removeGroup', args };
  }],
];

const TOTAL_WEIGHT = CHANGES.reduce((sum, [weight]) => sum + weight, 0);

export function randomChurn(model: UniversityModel, seed: number, count = 6): ChurnRecord[] {
  const random = new Random(seed);
  const records: ChurnRecord[] = [];
  for (let index = 0; index < count; index += 1) {
    const record = pickChange(random)(model, random);
    if (record) records.push(record);
  }
  return records;
}

function pickChange(random: Random): Change {
  let roll = random.next() * TOTAL_WEIGHT;
  for (const [weight, change] of CHANGES) {
    roll -= weight;
    if (roll < 0) return change;
  }
  return (CHANGES.at(-1) as (typeof CHANGES)[number])[1];
}

/** Runs a change on a random scheduled (not cancelled) occurrence of the current term, if there is one. */
function withOccurrence(
  model: UniversityModel,
  random: Random,
  change: (occurrenceId: number) => ChurnRecord | undefined,
): ChurnRecord | undefined {
  const candidates = model.occurrencesOfTerm(model.currentPuId).filter((occurrence) => !occurrence.cancelled);
  if (candidates.length === 0) return undefined;
  return change(random.pick(candidates).id);
}
