import { renderCalendar, type CalendarEvent } from '@timetable/calendar';
import { NotFoundError } from '@timetable/http';
import { isUuid } from '../../http/query-values.js';
import type { OccurrenceFilter } from '../occurrences/occurrence-filter.js';
import type { RenderedFeed } from './feed-dates.js';
import { personalFeedName, semesterFeedName } from './feed-names.js';
import type { FeedOccurrenceRow, IcalStore } from './ical-store.js';

/** The feeds' fixed horizon: the next 365 days. */
export const FEED_HORIZON_DAYS = 365;
/** How often a subscribed calendar app is asked to fetch a feed again (REFRESH-INTERVAL, X-PUBLISHED-TTL). */
export const FEED_REFRESH_SECONDS = 3600;
const MS_PER_DAY = 86_400_000;

export interface IcalServiceDeps {
  store: IcalStore;
  icalDomain: string;
  now: () => Date;
}

/**
 * The semester feed and the personal feed. Both render their VEVENTs the same way, so an occurrence has
 * the same UID, SEQUENCE and DTSTAMP in every feed that holds it and a client subscribed to both sees one
 * event, not two.
 */
export class IcalService {
  constructor(private readonly deps: IcalServiceDeps) {}

  /** One VEVENT per occurrence; a semester without an academic period gives a valid empty calendar. */
  async feed(semesterId: string): Promise<RenderedFeed> {
    const semester = isUuid(semesterId) ? await this.deps.store.semester(semesterId) : null;
    if (!semester) throw new NotFoundError('semester', semesterId);
    const name = semesterFeedName(semester);
    if (semester.academicPeriodId === null) return this.render(name, []);
    const { from, to } = this.horizon();
    return this.render(name, await this.deps.store.occurrences(semester.academicPeriodId, from, to));
  }

  /** The occurrences the filter keeps, by the week views' rules; the caller checks the filter is not empty. */
  async personalFeed(filter: OccurrenceFilter): Promise<RenderedFeed> {
    const { from, to } = this.horizon();
    const [rows, names] = await Promise.all([this.deps.store.matching(filter, from, to), this.deps.store.selectionNames(filter)]);
    return this.render(personalFeedName(names), rows);
  }

  private render(name: string, rows: FeedOccurrenceRow[]): RenderedFeed {
    let newestChange: Date | null = null;
    for (const row of rows) if (newestChange === null || row.updated_at > newestChange) newestChange = row.updated_at;
    const text = renderCalendar({ name, refreshIntervalSeconds: FEED_REFRESH_SECONDS, events: rows.map((row) => this.toEvent(row)) });
    return { text, newestChange };
  }

  private horizon(): { from: Date; to: Date } {
    const from = this.deps.now();
    return { from, to: new Date(from.getTime() + FEED_HORIZON_DAYS * MS_PER_DAY) };
  }

  private toEvent(row: FeedOccurrenceRow): CalendarEvent {
    const location = row.room_names ?? (row.location === '' ? undefined : row.location);
    return {
      // Stable across syncs: the event id and the occurrence's local date.
      uid: `${row.event_id}-${row.local_date}@${this.deps.icalDomain}`,
      summary: row.summary,
      ...(location === undefined ? {} : { location }),
      ...(row.instructor_names === null ? {} : { description: row.instructor_names }),
      start: row.start_time,
      end: row.end_time,
      stamp: row.updated_at,
      lastModified: row.updated_at,
      sequence: row.sequence,
    };
  }
}
