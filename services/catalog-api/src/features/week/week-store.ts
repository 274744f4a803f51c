import type { Knex } from '@timetable/db';

/** Each present list keeps occurrences matching one of its ids; lists intersect. */
export interface WeekFilter {
  instructorIds?: string[];
  roomIds?: string[];
  courseIds?: string[];
  groupIds?: string[];
}

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

export class WeekStore {
  constructor(private readonly knex: Knex) {}

  /** Occurrences starting in [start, endExclusive): an index range scan on start_time. */
  async occurrences(start: Date, endExclusive: Date, filter: WeekFilter): Promise<WeekOccurrenceRow[]> {
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
    if (filter.courseIds) query.whereRaw('o.course_id = any(?)', [filter.courseIds]);
    if (filter.groupIds) query.whereRaw('o.semester_id = any(?)', [filter.groupIds]);
    if (filter.roomIds) this.whereLinked(query, 'event_rooms', 'room_id', filter.roomIds);
    if (filter.instructorIds) this.whereLinked(query, 'event_instructors', 'instructor_id', filter.instructorIds);
    return query;
  }

  // Every room and instructor of an event counts, not only the first.
  private whereLinked(query: Knex.QueryBuilder, table: string, column: string, ids: string[]): void {
    query.whereExists((links) =>
      links
        .select(this.knex.raw('1'))
        .from(`${table} as link`)
        .whereRaw('link.event_id = o.event_id')
        .andWhereRaw('?? = any(?)', [`link.${column}`, ids]),
    );
  }
}
