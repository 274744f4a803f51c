import type { Knex } from '@timetable/db';

export interface FeedSemester {
  id: string;
  name: string;
  academicPeriodId: string | null;
  /** Null when the semester's program is not mirrored. */
  programShortName: string | null;
}

export interface FeedOccurrenceRow {
  event_id: string;
  start_time: Date;
  end_time: Date;
  local_date: string;
  summary: string;
  location: string;
  sequence: number;
  updated_at: Date;
  room_names: string | null;
  instructor_names: string | null;
}

export class IcalStore {
  constructor(private readonly knex: Knex) {}

  async semester(id: string): Promise<FeedSemester | null> {
    const row: { id: string; name: string; academic_period_id: string | null; short_name: string | null } | undefined = await this.knex(
      'semesters as s',
    )
      .leftJoin('programs as p', 'p.id', 's.program_id')
      .where('s.id', id)
      .first('s.id', 's.name', 's.academic_period_id', 'p.short_name');
    return row ? { id: row.id, name: row.name, academicPeriodId: row.academic_period_id, programShortName: row.short_name } : null;
  }

  /** The period's occurrences starting in [from, to), with room and instructor names aggregated once per event. */
  async occurrences(periodId: string, from: Date, to: Date): Promise<FeedOccurrenceRow[]> {
    const result = await this.knex.raw<{ rows: FeedOccurrenceRow[] }>(
      `with feed_events as (
         select e.id, e.title, e.location, e.sequence, e.updated_at, e.course_id,
           (select string_agg(r.name, ', ' order by er.position)
              from event_rooms er join rooms r on r.id = er.room_id where er.event_id = e.id) as room_names,
           (select string_agg(i.name, ', ' order by ei.position)
              from event_instructors ei join instructors i on i.id = ei.instructor_id where ei.event_id = e.id) as instructor_names
         from events e where e.period_id = :periodId
       )
       select o.event_id, o.start_time, o.end_time, o.local_date, coalesce(c.name, fe.title) as summary, fe.location,
              fe.sequence, fe.updated_at, fe.room_names, fe.instructor_names
       from occurrences o
       join feed_events fe on fe.id = o.event_id
       left join courses c on c.id = fe.course_id
       where o.period_id = :periodId and o.start_time >= :from and o.start_time < :to
       order by o.start_time, o.event_id`,
      { periodId, from, to },
    );
    return result.rows;
  }
}
