/** The routes a student's app asks for, picked from what a running system's catalog holds. */
import { isoWeekOf } from '@timetable/calendar';
import { PERSONAL_FEED_MAX_IDS, type OccurrenceResource, type SemesterResource } from '@timetable/contracts';
import type { RouteToMeasure } from './side-by-side.js';

async function json<T>(url: string): Promise<T> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}`);
  return (await response.json()) as T;
}

/**
 * The semester (one group) with the most occurrences: this week (in `timeZone`, the server's) by explicit ISO
 * week and as `/week/current`, which answer the same, its courses listing, and a personal feed of its courses.
 */
export async function studentViews(api: string, timeZone: string): Promise<RouteToMeasure[]> {
  const semesters = (await json<{ data: SemesterResource[] }>(`${api}/semesters`)).data;
  let best: { semesterId: string; occurrences: OccurrenceResource[] } | undefined;
  for (const semester of semesters) {
    const occurrences = (await json<{ data: OccurrenceResource[] }>(`${api}/semesters/${semester.id}/courses`)).data;
    if (!best || occurrences.length > best.occurrences.length) best = { semesterId: semester.id, occurrences };
  }
  if (!best || best.occurrences.length === 0) throw new Error('the catalog holds no occurrences after the first sync');
  const week = isoWeekOf(new Date(), timeZone).label;
  const courseIds = [...new Set(best.occurrences.map((occurrence) => occurrence.course.id))].slice(0, PERSONAL_FEED_MAX_IDS);
  return [
    { name: `/week/${week}?groupIds=<one group>`, path: `/week/${week}?groupIds=${best.semesterId}` },
    { name: '/week/current?groupIds=<one group>', path: `/week/current?groupIds=${best.semesterId}` },
    { name: '/semesters/:id/courses', path: `/semesters/${best.semesterId}/courses` },
    { name: `/ical?courseIds=<${courseIds.length} courses> (cached)`, path: `/ical?courseIds=${courseIds.join(',')}` },
  ];
}
