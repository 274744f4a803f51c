import { excludedStarts } from '@timetable/calendar';
import type { OccurrenceResource } from '@timetable/contracts';
import type { Knex } from '@timetable/db';

interface EventListingRow {
  id: string;
  first_start: Date;
  first_end: Date;
  time_zone: string;
  dtstart: string;
  recurrence_rule: string | null;
  exdates: string[];
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

/**
 * The exclusions a client needs: starts of the rule that do not take place. Those before the first
 * occurrence cannot matter to a client expanding from it.
 */
function excludedDatesOf(row: EventListingRow): string[] {
  const series = { dtstart: row.dtstart, recurrenceRule: row.recurrence_rule, exdates: row.exdates };
  return excludedStarts(series, row.time_zone)
    .filter((start) => start > row.first_start)
    .map((start) => start.toISOString());
}

// A course, semester or program not (yet) mirrored still yields a complete entry from the event.
function toListingEntry(row: EventListingRow): OccurrenceResource {
  const courseName = row.course_name ?? row.title;
  return {
    id: row.id,
    summary: courseName,
    startTime: row.first_start.toISOString(),
    endTime: row.first_end.toISOString(),
    weekday: row.first_start.getUTCDay(),
    recurrenceRule: row.recurrence_rule,
    excludedDates: excludedDatesOf(row),
    course: { id: row.course_id, name: courseName, code: row.course_code ?? '' },
    room: row.room_id === null ? null : { id: row.room_id, name: row.room_name ?? '', building: row.room_building ?? '' },
    instructor: row.instructor_id === null ? null : { id: row.instructor_id, name: row.instructor_name ?? '' },
    semester: { id: row.semester_id, name: row.semester_name ?? '', program: { id: row.program_id, name: row.program_name ?? '' } },
  };
}

export interface EventListingStoreDeps {
  /** On the catalog schema. */
  knex: Knex;
}

/**
 * Course listings: one entry per event with its first materialised occurrence, in one joined query (no
 * lookups per row). An event none of whose occurrences takes place has nothing to list.
 */
export class EventListingStore {
  private readonly knex: Knex;

  constructor(deps: EventListingStoreDeps) {
    this.knex = deps.knex;
  }

  forPeriods(periodIds: string[]): Promise<OccurrenceResource[]> {
    if (periodIds.length === 0) return Promise.resolve([]);
    return this.list((query) => {
      query.whereRaw('e.period_id = any(?)', [periodIds]);
    });
  }

  forInstructor(instructorId: string): Promise<OccurrenceResource[]> {
    return this.list((query) => {
      query.whereExists((links) => {
        links.select(this.knex.raw('1')).from('event_instructors as ei').whereRaw('ei.event_id = e.id').andWhere('ei.instructor_id', instructorId);
      });
    });
  }

  private async list(filter: (query: Knex.QueryBuilder) => void): Promise<OccurrenceResource[]> {
    const query = this.knex('events as e')
      .joinRaw(
        'cross join lateral (select o.start_time, o.end_time from occurrences o where o.event_id = e.id order by o.start_time limit 1) as f',
      )
      .leftJoin('courses as c', 'c.id', 'e.course_id')
      // The first room and instructor are the upstream's first, kept first in the event's id arrays.
      .leftJoin('rooms as r', (join) => join.on('r.id', '=', this.knex.raw('e.room_ids->>0')))
      .leftJoin('instructors as i', (join) => join.on('i.id', '=', this.knex.raw('e.instructor_ids->>0')))
      .leftJoin('semesters as s', 's.id', 'e.semester_id')
      .leftJoin('programs as p', 'p.id', 'e.program_id')
      .select(
        'e.id',
        'f.start_time as first_start',
        'f.end_time as first_end',
        'e.time_zone',
        'e.dtstart',
        'e.recurrence_rule',
        'e.exdates',
        'e.title',
        'e.course_id',
        'c.name as course_name',
        'c.code as course_code',
        'r.id as room_id',
        'r.name as room_name',
        'r.building as room_building',
        'i.id as instructor_id',
        'i.name as instructor_name',
        'e.semester_id',
        's.name as semester_name',
        'e.program_id',
        'p.name as program_name',
      )
      .orderBy([{ column: 'f.start_time' }, { column: 'e.id' }]);
    filter(query);
    const rows: EventListingRow[] = await query;
    return rows.map(toListingEntry);
  }
}
