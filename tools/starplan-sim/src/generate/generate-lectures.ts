/** Lectures with German names, spread over the planning groups; some are also listed by other groups. */
import type { Lecture, PlanningGroup } from '../model/types.js';
import type { Random } from './random.js';
import { LECTURE_FORMS, TOPICS } from './vocabulary.js';

/** Keeps lecture names and shortnames unique: the iCal identifies a lecture by them within a group. */
export class LectureNamer {
  private readonly names = new Set<string>();

  constructor(existing: Iterable<Lecture> = []) {
    for (const lecture of existing) this.names.add(lecture.name);
  }

  next(random: Random): { shortname: string; name: string } {
    for (let attempt = 0; attempt < 4; attempt += 1) {
      const candidate = this.candidate(random);
      if (!this.names.has(candidate.name)) return this.take(candidate);
    }
    const candidate = this.candidate(random);
    for (let stream = 2; ; stream += 1) {
      const name = `${candidate.name} (Zug ${stream})`;
      if (!this.names.has(name)) return this.take({ shortname: `${candidate.shortname}-${stream}`, name });
    }
  }

  private candidate(random: Random) {
    const topic = random.pick(TOPICS);
    const form = random.pick(LECTURE_FORMS);
    const number = String(random.int(1, 4));
    const fill = (pattern: string) =>
      pattern.replace('{a}', topic.abbreviation).replace('{t}', topic.name).replace('{n}', number);
    return { shortname: fill(form.shortname), name: fill(form.name) };
  }

  private take(naming: { shortname: string; name: string }) {
    this.names.add(naming.name);
    return naming;
  }
}

export function generateLectures(random: Random, groups: PlanningGroup[], count: number, firstId: number): Lecture[] {
  const namer = new LectureNamer();
  const lectures: Lecture[] = [];
  for (let index = 0; index < count; index += 1) {
    const group = groups[index % groups.length];
    if (!group) throw new Error('no planning groups');
    const lecture = { id: firstId + index, ...namer.next(random), pgid: group.id };
    group.lectureIds.push(lecture.id);
    lectures.push(lecture);
  }
  shareLectures(random, lectures, groups);
  return lectures;
}

/** About one lecture in twelve is also listed by another group, mostly of the same program. */
function shareLectures(random: Random, lectures: Lecture[], groups: PlanningGroup[]): void {
  const byId = new Map(groups.map((group) => [group.id, group]));
  for (const lecture of lectures) {
    if (!random.chance(1 / 12)) continue;
    const home = byId.get(lecture.pgid);
    const siblings = groups.filter((group) => group.ogId === home?.ogId && group.id !== lecture.pgid);
    const target = random.chance(0.7) && siblings.length > 0 ? random.pick(siblings) : random.pick(groups);
    if (!target.lectureIds.includes(lecture.id)) target.lectureIds.push(lecture.id);
  }
}
