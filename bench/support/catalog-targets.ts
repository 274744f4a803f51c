/** What `npm run bench` measures in the catalog the first sync left: a busy semester, its week, feeds of it. */
import { isoWeekOf } from '@timetable/calendar';
import { PERSONAL_FEED_MAX_IDS, type OccurrenceResource, type SemesterResource } from '@timetable/contracts';

async function json<T>(url: string): Promise<T> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}`);
  return (await response.json()) as T;
}

export interface Targets {
  semesterId: string;
  week: string;
  /** A student's personal feed: the courses of that semester. */
  personalFeedPath: string;
  personalCourses: number;
  /** A personal feed of whole groups (semesters), as many as it takes to pass LARGE_FEED_EVENTS events. */
  largeFeedPath: string;
  largeFeedGroups: number;
}

/** The size the cold-render target names. */
const LARGE_FEED_EVENTS = 1_500;

async function veventsOf(api: string, groupIds: string[]): Promise<number> {
  const response = await fetch(`${api}/ical?groupIds=${groupIds.join(',')}`);
  if (response.status !== 200) throw new Error(`the group feed answered ${response.status}`);
  return (await response.text()).split('BEGIN:VEVENT').length - 1;
}

/**
 * The shortest prefix of `groups` whose feed holds at least LARGE_FEED_EVENTS events (a feed's VEVENTs, not
 * the courses listing's entries): doubling, then bisecting.
 */
async function smallestFeedOf(api: string, groups: string[]): Promise<string[]> {
  const candidates = groups.slice(0, PERSONAL_FEED_MAX_IDS);
  let high = 1;
  while (high < candidates.length && (await veventsOf(api, candidates.slice(0, high))) < LARGE_FEED_EVENTS) high *= 2;
  high = Math.min(high, candidates.length);
  let low = Math.floor(high / 2) + 1;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if ((await veventsOf(api, candidates.slice(0, middle))) >= LARGE_FEED_EVENTS) high = middle;
    else low = middle + 1;
  }
  return candidates.slice(0, high);
}

/** The semester with the most occurrences, and the week of its next occurrence (its last one if none is ahead). */
export async function pickTargets(api: string): Promise<Targets> {
  const semesters = (await json<{ data: SemesterResource[] }>(`${api}/semesters`)).data;
  let best: { semesterId: string; occurrences: OccurrenceResource[] } | undefined;
  const eventsPerSemester: { semesterId: string; events: number }[] = [];
  for (const semester of semesters) {
    const occurrences = (await json<{ data: OccurrenceResource[] }>(`${api}/semesters/${semester.id}/courses`)).data;
    eventsPerSemester.push({ semesterId: semester.id, events: occurrences.length });
    if (!best || occurrences.length > best.occurrences.length) best = { semesterId: semester.id, occurrences };
  }
  const largeGroups = await smallestFeedOf(api, eventsPerSemester.sort((a, b) => b.events - a.events).map((entry) => entry.semesterId));
  const last = best?.occurrences.at(-1);
  if (!best || !last) throw new Error('the catalog holds no occurrences after the first sync');
  const next = best.occurrences.find((occurrence) => Date.parse(occurrence.startTime) >= Date.now()) ?? last;
  const courseIds = [...new Set(best.occurrences.map((occurrence) => occurrence.course.id))].slice(0, PERSONAL_FEED_MAX_IDS);
  return {
    semesterId: best.semesterId,
    week: isoWeekOf(new Date(next.startTime), 'Europe/Berlin').label,
    personalFeedPath: `/ical?courseIds=${courseIds.join(',')}`,
    personalCourses: courseIds.length,
    largeFeedPath: `/ical?groupIds=${largeGroups.join(',')}`,
    largeFeedGroups: largeGroups.length,
  };
}
