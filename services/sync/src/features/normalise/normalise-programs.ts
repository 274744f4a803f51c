/** Programs, their semesters (planning groups) and academic periods (pu x group with a fetched feed). */
import type { AcademicPeriodData, ProgramData, SemesterData } from '@timetable/contracts';
import type { UpstreamPlanningGroup, UpstreamPlanningUnit, UpstreamProgram } from '../read/upstream-types.js';
import { pairScope, programScope, type NormalisedEntity } from './normalised-entity.js';
import type { UpstreamSnapshot } from '../read/upstream-snapshot.js';
import { MAX_INTEGER } from '../validate/bounds.js';
import { academicPeriodIdOf, programIdOf, semesterIdOf } from './upstream-ids.js';

export function degreeTypeOf(programName: string): string {
  if (/^bachelor/i.test(programName)) return 'bachelor';
  if (/^master/i.test(programName)) return 'master';
  return 'other';
}

/** `feedsRead`: the groups whose feed this run read (parsed, or unchanged): only they have an academic period. */
export function normalisePrograms(upstream: UpstreamSnapshot, feedsRead: ReadonlySet<number>): NormalisedEntity[] {
  const entities: NormalisedEntity[] = [];
  const seenGroups = new Set<number>();
  for (const program of upstream.programs) {
    entities.push(programEntity(program));
    upstream.groupsByProgram.get(program.id)?.forEach((group, index) => {
      // A group listed by two programs belongs to the first, as its feed does (groupsToRead).
      if (seenGroups.has(group.id)) return;
      seenGroups.add(group.id);
      const hasFeed = feedsRead.has(group.id);
      entities.push(semesterEntity(upstream.planningUnit, program, { group, index, hasFeed }));
      if (hasFeed) entities.push(periodEntity(upstream.planningUnit, program, group));
    });
  }
  return entities;
}

function programEntity(program: UpstreamProgram): NormalisedEntity {
  const data: ProgramData = {
    id: programIdOf(program.id),
    name: program.name,
    shortName: program.shortname,
    degreeType: degreeTypeOf(program.name),
    facultyId: String(program.id),
    isActive: true,
    upstreamId: program.id,
  };
  return { entityType: 'program', entityId: data.id, data, scopes: [] };
}

/**
 * The semester number is the trailing integer of the shortname (`INF-B 3`), else the list position: also when
 * the trailing digits make a number no integer column holds.
 */
export function semesterNumberOf(shortname: string, index: number): number {
  const trailing = Number(/(\d+)\s*$/.exec(shortname)?.[1]);
  return Number.isSafeInteger(trailing) && trailing <= MAX_INTEGER ? trailing : index + 1;
}

/** A group as its program lists it: its position in the list and whether this run read its feed. */
interface ListedGroup {
  group: UpstreamPlanningGroup;
  index: number;
  hasFeed: boolean;
}

function semesterEntity(unit: UpstreamPlanningUnit, program: UpstreamProgram, { group, index, hasFeed }: ListedGroup): NormalisedEntity {
  const data: SemesterData = {
    id: semesterIdOf(group.id),
    programId: programIdOf(program.id),
    name: group.shortname,
    number: semesterNumberOf(group.shortname, index),
    academicPeriodId: hasFeed ? academicPeriodIdOf(unit.id, group.id) : null,
    upstreamId: group.id,
    planningUnitId: unit.id,
  };
  return { entityType: 'semester', entityId: data.id, data, scopes: [programScope(program.id), pairScope(group.id)] };
}

function periodEntity(unit: UpstreamPlanningUnit, program: UpstreamProgram, group: UpstreamPlanningGroup): NormalisedEntity {
  const data: AcademicPeriodData = {
    id: academicPeriodIdOf(unit.id, group.id),
    planningUnitId: unit.id,
    programId: programIdOf(program.id),
    semesterId: semesterIdOf(group.id),
    name: `${group.shortname} – ${unit.name}`,
    startDate: unit.startdate,
    endDate: unit.enddate,
  };
  return { entityType: 'academicPeriod', entityId: data.id, data, scopes: [programScope(program.id), pairScope(group.id)] };
}
