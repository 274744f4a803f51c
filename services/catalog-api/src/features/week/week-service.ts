import type { WeekOccurrenceResource, WeekResponse } from '@timetable/contracts';
import { isoWeekOf, localToInstant, parseWeekLabel, weekExists, weekRange } from '@timetable/calendar';
import { ValidationError } from '@timetable/http';
import type { OccurrenceFilter } from '../occurrences/occurrence-filter.js';
import type { WeekOccurrenceRow, WeekStore } from './week-store.js';

const MS_PER_MINUTE = 60_000;

export interface WeekServiceDeps {
  store: WeekStore;
  /** IANA zone of weeks (TIME_ZONE). */
  timeZone: string;
  now: () => Date;
}

export class WeekService {
  private readonly store: WeekStore;
  private readonly timeZone: string;
  private readonly now: () => Date;

  constructor(deps: WeekServiceDeps) {
    this.store = deps.store;
    this.timeZone = deps.timeZone;
    this.now = deps.now;
  }

  currentLabel(): string {
    return isoWeekOf(this.now(), this.timeZone).label;
  }

  /** A label must match the spec's pattern and name a week that exists (2025-W53 does not): else 400. */
  assertLabel(label: string): { year: number; week: number } {
    const parsed = parseWeekLabel(label);
    if (!parsed || !weekExists(parsed.year, parsed.week)) {
      throw new ValidationError(`Invalid week '${label}': expected an existing ISO week YYYY-Www`, { week: label });
    }
    return parsed;
  }

  async week(label: string, filter: OccurrenceFilter): Promise<WeekResponse> {
    const { year, week } = this.assertLabel(label);
    const range = weekRange(year, week, this.timeZone);
    const rows = await this.store.occurrences(range.start, range.endExclusive, filter);
    return {
      week: label,
      dateRange: { start: range.start.toISOString(), end: range.end.toISOString() },
      occurrences: rows.map((row) => this.toWeekOccurrence(row)),
    };
  }

  private toWeekOccurrence(row: WeekOccurrenceRow): WeekOccurrenceResource {
    return {
      eventId: row.event_id,
      occurrenceDate: localToInstant(`${row.local_date}T00:00:00`, this.timeZone).toISOString(),
      startTime: row.start_time.toISOString(),
      durationMin: Math.round((row.end_time.getTime() - row.start_time.getTime()) / MS_PER_MINUTE),
      originalEvent: {
        id: row.event_id,
        title: row.title,
        courseId: row.course_id,
        programId: row.program_id,
        semesterId: row.semester_id,
        periodId: row.period_id,
        roomId: row.room_ids[0] ?? null,
        roomIds: row.room_ids,
        instructorIds: row.instructor_ids,
        recurrenceRule: row.recurrence_rule,
        location: row.location,
        note: row.note,
      },
    };
  }
}
