import { expressPath, weekApi } from '@timetable/contracts';
import { API_PREFIX } from '@timetable/http';

const CURRENT_WEEK_PATH = `${API_PREFIX}${weekApi.current.path}`;

/** The route pattern Express counts `/week/current` under, for the answers given here as well. */
export const CURRENT_WEEK_ROUTE = `${API_PREFIX}${expressPath(weekApi.current.path)}`;

/**
 * For a request of `/week/current` (exactly that path, with any query): the URL of the week `currentWeek`
 * names, with the same query, under which the catalog stores the answer (`/week/current` and that URL answer
 * the same bytes while the week lasts). Undefined for any other URL.
 */
export function currentWeekUrl(url: string, currentWeek: () => string): string | undefined {
  if (!url.startsWith(CURRENT_WEEK_PATH)) return undefined;
  const query = url.slice(CURRENT_WEEK_PATH.length);
  if (query !== '' && !query.startsWith('?')) return undefined;
  return `${API_PREFIX}${weekApi.week.path.replace('{week}', currentWeek())}${query}`;
}
