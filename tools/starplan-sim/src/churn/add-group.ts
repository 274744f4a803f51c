/** A new planning group in an existing program, with a few new lectures scheduled in every term. */
import { planningGroupOf } from '../generate/generate-programs.js';
import { LectureNamer } from '../generate/generate-lectures.js';
import { scheduleResources } from '../generate/generate-university.js';
import { Random } from '../generate/random.js';
import { scheduleGroup } from '../generate/schedule-group.js';
import type { PlanningGroup } from '../model/types.js';
import type { UniversityModel } from '../model/university-model.js';
import { existing } from './operations.js';

const NEW_GROUP_LECTURES = 3;

export function addGroup(model: UniversityModel, args: { ogId: number; seed: number }): PlanningGroup {
  const program = existing(model.programs, args.ogId, 'program');
  const random = new Random(args.seed);
  const group = planningGroupOf(program, nextGroupNumber(model.groupsOfProgram(program.id)), model.nextId('group'));
  model.groups.set(group.id, group);

  const namer = new LectureNamer(model.lectures.values());
  const lectures = Array.from({ length: NEW_GROUP_LECTURES }, () => {
    const lecture = { id: model.nextId('lecture'), ...namer.next(random), pgid: group.id };
    model.lectures.set(lecture.id, lecture);
    group.lectureIds.push(lecture.id);
    return lecture;
  });

  const resources = scheduleResources(model.rooms.values(), model.lecturers.values(), () => model.nextId('occurrence'));
  for (const unit of model.planningUnits) {
    for (const occurrence of scheduleGroup(random, { unit, program }, lectures, resources)) model.addOccurrence(occurrence);
  }
  return group;
}

function nextGroupNumber(groups: PlanningGroup[]): number {
  const numbers = groups.map((group) => Number(/(\d+)$/.exec(group.shortname)?.[1] ?? 0));
  return Math.max(0, ...numbers) + 1;
}
