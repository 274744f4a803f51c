/** Lectures become courses; a lecture listed by several groups is one course attributed to its home group. */
import type { CourseData } from '@timetable/contracts';
import type { UpstreamLecture } from '../read/upstream-types.js';
import { programScope, type NormalisedEntity } from './normalised-entity.js';
import type { UpstreamSnapshot } from '../read/upstream-snapshot.js';
import { courseIdOf, programIdOf, semesterIdOf } from './upstream-ids.js';

interface Listing {
  lecture: UpstreamLecture;
  /** og and pgid of the first group listing it. */
  firstOg: number;
  firstPgid: number;
  ogs: Set<number>;
}

export function normaliseCourses(upstream: UpstreamSnapshot): NormalisedEntity[] {
  const ogOfGroup = new Map<number, number>();
  const listings = new Map<number, Listing>();
  for (const [og, groups] of upstream.groupsByProgram) {
    for (const group of groups) {
      if (!ogOfGroup.has(group.id)) ogOfGroup.set(group.id, og);
      for (const lecture of group.lectures) {
        const listing = listings.get(lecture.id);
        if (listing) listing.ogs.add(og);
        else listings.set(lecture.id, { lecture, firstOg: og, firstPgid: group.id, ogs: new Set([og]) });
      }
    }
  }
  return [...listings.values()].map(({ lecture, firstOg, firstPgid, ogs }) => {
    const homeOg = ogOfGroup.get(lecture.pgid);
    const [og, pgid] = homeOg === undefined ? [firstOg, firstPgid] : [homeOg, lecture.pgid];
    const data: CourseData = {
      id: courseIdOf(lecture.id),
      name: lecture.name,
      code: lecture.shortname,
      parentId: null,
      metadata: { upstreamId: lecture.id, pgid: lecture.pgid },
      programId: programIdOf(og),
      semesterId: semesterIdOf(pgid),
    };
    return { entityType: 'course', entityId: data.id, data, scopes: [...ogs].sort((a, b) => a - b).map(programScope) };
  });
}
