import type { OccurrenceFilter } from '../occurrences/occurrence-filter.js';
import type { FeedSemester, SelectionNames } from './ical-store.js';

/** Stands in for the program's short name, and heads every personal feed's name. */
export const FEED_LABEL = 'Timetable';
/** Names shown per filter list; a calendar app shows the name in a narrow sidebar. */
const NAMES_SHOWN_PER_LIST = 3;
const LIST_ORDER: (keyof OccurrenceFilter)[] = ['groupIds', 'courseIds', 'roomIds', 'instructorIds'];

/** `<program short name> – <semester name>`, the fixed label standing in for an unknown program. */
export function semesterFeedName(semester: FeedSemester): string {
  return `${semester.programShortName ?? FEED_LABEL} – ${semester.name}`;
}

/**
 * Names the selection so a subscriber recognises the calendar: the known names of each list (a union)
 * separated by commas, the lists (which intersect) by a middle dot, e.g.
 * `Timetable – INF-B 3 · Mathematik 1, Algorithmen +2 more`.
 */
export function personalFeedName(names: SelectionNames): string {
  const parts = LIST_ORDER.map((list) => names[list])
    .filter((listNames) => listNames.length > 0)
    .map((listNames) => {
      const shown = listNames.slice(0, NAMES_SHOWN_PER_LIST).join(', ');
      const hidden = listNames.length - NAMES_SHOWN_PER_LIST;
      return hidden > 0 ? `${shown} +${hidden} more` : shown;
    });
  return `${FEED_LABEL} – ${parts.length > 0 ? parts.join(' · ') : 'personal selection'}`;
}
