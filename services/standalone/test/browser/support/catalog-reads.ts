/** What the API itself says, read by the tests to compare with what the page shows. */

const DAY_MS = 86_400_000;

export interface WeekOccurrence {
  eventId: string;
  startTime: string;
  originalEvent: { courseId: string; roomId: string | null; roomIds?: string[]; title: string };
}

export interface Week {
  week: string;
  dateRange: { start: string; end: string };
  occurrences: WeekOccurrence[];
}

export async function readJson<T>(origin: string, path: string, headers: Record<string, string> = {}): Promise<T> {
  const response = await fetch(`${origin}/v1/timetable${path}`, { headers });
  if (!response.ok) throw new Error(`GET ${path} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

export function readWeek(origin: string, label: string, query = ''): Promise<Week> {
  return readJson<Week>(origin, `/week/${label}${query ? `?${query}` : ''}`);
}

/** The ISO week label of a UTC date (the week belongs to the year of its Thursday). */
export function isoWeekLabel(date: Date): string {
  const weekday = (date.getUTCDay() + 6) % 7;
  const thursday = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 3 - weekday));
  const year = thursday.getUTCFullYear();
  const week = 1 + Math.floor(Math.round((thursday.getTime() - Date.UTC(year, 0, 1)) / DAY_MS) / 7);
  return `${year}-W${String(week).padStart(2, '0')}`;
}

/** The label of the week after the one given, from the API's own date range (the next week starts at its end). */
export function labelAfter(week: Week): string {
  return isoWeekLabel(new Date(Date.parse(week.dateRange.end) + 1 + DAY_MS / 2));
}

/** Every occurrence the week views give for the filter query from this week on, for `weeks` weeks. */
export async function occurrencesFromNow(origin: string, query: string, weeks: number): Promise<WeekOccurrence[]> {
  let week = await readWeek(origin, 'current', query);
  const all = [...week.occurrences];
  for (let index = 1; index < weeks; index += 1) {
    week = await readWeek(origin, labelAfter(week), query);
    all.push(...week.occurrences);
  }
  return all;
}
