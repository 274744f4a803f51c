import { renderCalendar, type CalendarEvent } from '@timetable/calendar';
import { NotFoundError } from '@timetable/http';
import { isUuid } from '../../http/query-values.js';
import type { FeedOccurrenceRow, IcalStore } from './ical-store.js';

/** The feed's fixed horizon: the next 365 days. */
export const FEED_HORIZON_DAYS = 365;
/** Stands in for the program's short name in the calendar name when the program is unknown. */
export const FEED_FALLBACK_LABEL = 'Timetable';
const MS_PER_DAY = 86_400_000;

export interface IcalServiceDeps {
  store: IcalStore;
  icalDomain: string;
  now: () => Date;
}

export class IcalService {
  constructor(private readonly deps: IcalServiceDeps) {}

  /** One VEVENT per occurrence; a semester without an academic period gives a valid empty calendar. */
  async feed(semesterId: string): Promise<string> {
    const semester = isUuid(semesterId) ? await this.deps.store.semester(semesterId) : null;
    if (!semester) throw new NotFoundError('semester', semesterId);
    const name = `${semester.programShortName ?? FEED_FALLBACK_LABEL} – ${semester.name}`;
    if (semester.academicPeriodId === null) return renderCalendar({ name, events: [] });
    const from = this.deps.now();
    const to = new Date(from.getTime() + FEED_HORIZON_DAYS * MS_PER_DAY);
    const rows = await this.deps.store.occurrences(semester.academicPeriodId, from, to);
    return renderCalendar({ name, events: rows.map((row) => this.toEvent(row)) });
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
