import type { Knex } from '@timetable/db';
import { whereOccurrenceMatches, type OccurrenceFilter } from '../occurrences/occurrence-filter.js';

export interface WeekOccurrenceRow {
  event_id: string;
  start_time: Date;
  end_time: Date;
  local_date: string;
  title: string;
  course_id: string;
  program_id: string;
  semester_id: string;
  period_id: string;
  room_ids: string[];
  instructor_ids: string[];
  recurrence_rule: string | null;
  location: string;
  note: string | null;
}

export interface WeekStoreDeps {
  /** On the catalog schema. */
  knex: Knex;
}

export class WeekStore {
  private readonly knex: Knex;

  constructor(deps: WeekStoreDeps) {
    this.knex = deps.knex;
  }

  /** Occurrences starting in [start, endExclusive): an index range scan on start_time. */
  async occurrences(start: Date, endExclusive: Date, filter: OccurrenceFilter): Promise<WeekOccurrenceRow[]> {
    const query = this.knex('occurrences as o')
      .join('events as e', 'e.id', 'o.event_id')
      .where('o.start_time', '>=', start)
      .andWhere('o.start_time', '<', endExclusive)
      .select(
        'o.event_id',
        'o.start_time',
        'o.end_time',
        'o.local_date',
        'e.title',
        'e.course_id',
        'e.program_id',
        'e.semester_id',
        'e.period_id',
        'e.room_ids',
        'e.instructor_ids',
        'e.recurrence_rule',
        'e.location',
        'e.note',
      )
      .orderBy([{ column: 'o.start_time' }, { column: 'o.event_id' }]);
    whereOccurrenceMatches(this.knex, query, filter);
    return query;
  }
}
