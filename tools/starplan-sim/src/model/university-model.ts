/** The in-memory university: entities by id, the timetable per term and lecture, and the queries routes need. */
import type {
  Lecture,
  Lecturer,
  Location,
  Occurrence,
  PlanningGroup,
  PlanningUnit,
  Program,
  Room,
} from './types.js';

export interface UniversityData {
  planningUnits: PlanningUnit[];
  currentPuId: number;
  locations: Location[];
  rooms: Room[];
  programs: Program[];
  groups: PlanningGroup[];
  lectures: Lecture[];
  lecturers: Lecturer[];
  occurrences: Occurrence[];
}

type IdKind = 'group' | 'lecture' | 'lecturer' | 'occurrence';

type Named = { id: number; shortname: string };

/** StarPlan lists sort by shortname in code-unit order (`AW` before `AdA`). */
const byBinary = (a: Named, b: Named) =>
  a.shortname < b.shortname ? -1 : a.shortname > b.shortname ? 1 : a.id - b.id;

export class UniversityModel {
  readonly planningUnits: PlanningUnit[];
  readonly currentPuId: number;
  readonly locations: Map<number, Location>;
  readonly rooms: Map<number, Room>;
  readonly programs: Map<number, Program>;
  readonly groups: Map<number, PlanningGroup>;
  readonly lectures: Map<number, Lecture>;
  readonly lecturers: Map<number, Lecturer>;
  private readonly occurrencesById = new Map<number, Occurrence>();
  /** term id -> lecture id -> occurrences */
  private readonly schedule = new Map<number, Map<number, Occurrence[]>>();
  private readonly lastIds: Record<IdKind, number>;

  constructor(data: UniversityData) {
    this.planningUnits = data.planningUnits;
    this.currentPuId = data.currentPuId;
    this.locations = new Map(data.locations.map((entity) => [entity.id, entity]));
    this.rooms = new Map(data.rooms.map((entity) => [entity.id, entity]));
    this.programs = new Map(data.programs.map((entity) => [entity.id, entity]));
    this.groups = new Map(data.groups.map((entity) => [entity.id, entity]));
    this.lectures = new Map(data.lectures.map((entity) => [entity.id, entity]));
    this.lecturers = new Map(data.lecturers.map((entity) => [entity.id, entity]));
    for (const unit of data.planningUnits) this.schedule.set(unit.id, new Map());
    for (const occurrence of data.occurrences) this.addOccurrence(occurrence);
    this.lastIds = {
      group: maxId(this.groups.keys()),
      lecture: maxId(this.lectures.keys()),
      lecturer: maxId(this.lecturers.keys()),
      occurrence: maxId(this.occurrencesById.keys()),
    };
  }

  /** A fresh id of a kind; deterministic, so churn stays reproducible. */
  nextId(kind: IdKind): number {
    this.lastIds[kind] += 1;
    return this.lastIds[kind];
  }

  planningUnit(id: number): PlanningUnit | undefined {
    return this.planningUnits.find((unit) => unit.id === id);
  }

  get currentPlanningUnit(): PlanningUnit {
    const unit = this.planningUnit(this.currentPuId);
    if (!unit) throw new Error('the current planning unit is missing');
    return unit;
  }

  sortedPrograms(): Program[] {
    return [...this.programs.values()].sort(byBinary);
  }

  sortedLocations(): Location[] {
    return [...this.locations.values()].sort(byBinary);
  }

  groupsOfProgram(ogId: number): PlanningGroup[] {
    return [...this.groups.values()].filter((group) => group.ogId === ogId).sort(byBinary);
  }

  /** Listed lectures, ordered case-insensitively by shortname as StarPlan does. */
  lecturesOfGroup(pgid: number): Lecture[] {
    const group = this.groups.get(pgid);
    if (!group) return [];
    return group.lectureIds
      .map((id) => this.lectures.get(id))
      .filter((lecture): lecture is Lecture => lecture !== undefined)
      .map((lecture) => ({ lecture, key: lecture.shortname.toLowerCase() }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.lecture.id - b.lecture.id))
      .map(({ lecture }) => lecture);
  }

  roomsOfLocation(locationId: number): Room[] {
    return [...this.rooms.values()].filter((room) => room.locationId === locationId).sort(byBinary);
  }

  lecturersOfProgram(ogId: number): Lecturer[] {
    return [...this.lecturers.values()]
      .filter((lecturer) => lecturer.ogIds.includes(ogId))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id));
  }

  occurrence(id: number): Occurrence | undefined {
    return this.occurrencesById.get(id);
  }

  occurrencesOfLecture(puId: number, lectureId: number): readonly Occurrence[] {
    return this.schedule.get(puId)?.get(lectureId) ?? [];
  }

  /** Everything the group's feed lists (its own and shared lectures), cancelled ones included, by start. */
  occurrencesOfGroup(puId: number, pgid: number): Occurrence[] {
    const term = this.schedule.get(puId);
    const listed: Occurrence[] = [];
    for (const lectureId of this.groups.get(pgid)?.lectureIds ?? []) {
      for (const occurrence of term?.get(lectureId) ?? []) listed.push(occurrence);
    }
    return listed.sort((a, b) => a.day - b.day || (a.start < b.start ? -1 : a.start > b.start ? 1 : a.id - b.id));
  }

  occurrencesOfTerm(puId: number): Occurrence[] {
    // A plain loop: Array.prototype.flat is an order of magnitude slower on 100k occurrences.
    const all: Occurrence[] = [];
    for (const list of this.schedule.get(puId)?.values() ?? []) {
      for (const occurrence of list) all.push(occurrence);
    }
    return all;
  }

  addOccurrence(occurrence: Occurrence): void {
    const term = this.schedule.get(occurrence.puId);
    if (!term) throw new Error(`unknown planning unit ${occurrence.puId}`);
    const list = term.get(occurrence.lectureId);
    if (list) list.push(occurrence);
    else term.set(occurrence.lectureId, [occurrence]);
    this.occurrencesById.set(occurrence.id, occurrence);
  }

  removeOccurrence(id: number): boolean {
    const occurrence = this.occurrencesById.get(id);
    if (!occurrence) return false;
    const list = this.schedule.get(occurrence.puId)?.get(occurrence.lectureId) ?? [];
    list.splice(list.indexOf(occurrence), 1);
    this.occurrencesById.delete(id);
    return true;
  }

  /** Drops a lecture everywhere: its entity, its listings and its occurrences in every term. */
  removeLecture(lectureId: number): void {
    for (const term of this.schedule.values()) {
      for (const occurrence of term.get(lectureId) ?? []) this.occurrencesById.delete(occurrence.id);
      term.delete(lectureId);
    }
    for (const group of this.groups.values()) {
      const index = group.lectureIds.indexOf(lectureId);
      if (index >= 0) group.lectureIds.splice(index, 1);
    }
    this.lectures.delete(lectureId);
  }
}

function maxId(ids: Iterable<number>): number {
  let max = 0;
  for (const id of ids) max = Math.max(max, id);
  return max;
}
