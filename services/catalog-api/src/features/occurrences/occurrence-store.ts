import type { OccurrenceResource } from '@timetable/contracts';
import type { Knex } from '@timetable/db';

interface OccurrenceRow {
  event_id: string;
  start_time: Date;
  end_time: Date;
  recurrence_rule: string | null;
  title: string;
  course_id: string;
  course_name: string | null;
  course_code: string | null;
  room_id: string | null;
  room_name: string | null;
  room_building: string | null;
  instructor_id: string | null;
  instructor_name: string | null;
  semester_id: string;
  semester_name: string | null;
  program_id: string;
  program_name: string | null;
}

// A course, semester or program not (yet) mirrored still yields a complete occurrence from the event.
function toOccurrence(row: OccurrenceRow): OccurrenceResource {
  const courseName = row.course_name ?? row.title;
  return {
    id: row.event_id,
    summary: courseName,
    startTime: row.start_time.toISOString(),
    endTime: row.end_time.toISOString(),
    weekday: row.start_time.getUTCDay(),
    recurrenceRule: row.recurrence_rule,
    course: { id: row.course_id, name: courseName, code: row.course_code ?? '' },
    room: row.room_id === null ? null : { id: row.room_id, name: row.room_name ?? '', building: row.room_building ?? '' },
    instructor: row.instructor_id === null ? null : { id: row.instructor_id, name: row.instructor_name ?? '' },
    semester: { id: row.semester_id, name: row.semester_name ?? '', program: { id: row.program_id, name: row.program_name ?? '' } },
  };
}

/** Occurrence listings in one joined query each: no lookups per row. */
export class OccurrenceStore {
  constructor(private readonly knex: Knex) {}

  forPeriods(periodIds: string[]): Promise<OccurrenceResource[]> {
    if (periodIds.length === 0) return Promise.resolve([]);
    return this.list((query) => query.whereRaw('o.period_id = any(?)', [periodIds]));
  }

  forInstructor(instructorId: string): Promise<OccurrenceResource[]> {
    return this.list((query) =>
      query.whereExists((links) =>
        links.select(this.knex.raw('1')).from('event_instructors as ei').whereRaw('ei.event_id = o.event_id').andWhere('ei.instructor_id', instructorId),
      ),
    );
  }

  private async list(filter: (query: Knex.QueryBuilder) => void): Promise<OccurrenceResource[]> {
    const query = this.knex('occurrences as o')
      .join('events as e', 'e.id', 'o.event_id')
      .leftJoin('courses as c', 'c.id', 'o.course_id')
      .leftJoin('rooms as r', 'r.id', 'o.first_room_id')
      .leftJoin('instructors as i', 'i.id', 'o.first_instructor_id')
      .leftJoin('semesters as s', 's.id', 'o.semester_id')
      .leftJoin('programs as p', 'p.id', 'e.program_id')
      .select(
        'o.event_id',
        'o.start_time',
        'o.end_time',
        'e.recurrence_rule',
        'e.title',
        'o.course_id',
        'c.name as course_name',
        'c.code as course_code',
        'r.id as room_id',
        'r.name as room_name',
        'r.building as room_building',
        'i.id as instructor_id',
        'i.name as instructor_name',
        'o.semester_id',
        's.name as semester_name',
        'e.program_id',
        'p.name as program_name',
      )
      .orderBy([{ column: 'o.start_time' }, { column: 'o.event_id' }]);
    filter(query);
    const rows: OccurrenceRow[] = await query;
    return rows.map(toOccurrence);
  }
}
