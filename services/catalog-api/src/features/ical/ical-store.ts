import type { Knex } from '@timetable/db';
import { whereOccurrenceMatches, type OccurrenceFilter } from '../occurrences/occurrence-filter.js';

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

type OccurrenceTimes = Pick<FeedOccurrenceRow, 'event_id' | 'start_time' | 'end_time' | 'local_date'>;
type FeedEventRow = Omit<FeedOccurrenceRow, keyof OccurrenceTimes> & { id: string };

/** Names of the mirrored entities a personal feed selects, per filter, each sorted by name. */
export type SelectionNames = Record<keyof OccurrenceFilter, string[]>;

const NAMED_TABLE: Record<keyof OccurrenceFilter, string> = {
  groupIds: 'semesters',
  courseIds: 'courses',
  roomIds: 'rooms',
  instructorIds: 'instructors',
};

export interface IcalStoreDeps {
  /** On the catalog schema. */
  knex: Knex;
}

export class IcalStore {
  private readonly knex: Knex;

  constructor(deps: IcalStoreDeps) {
    this.knex = deps.knex;
  }

  async semester(id: string): Promise<FeedSemester | null> {
    const row: { id: string; name: string; academic_period_id: string | null; short_name: string | null } | undefined = await this.knex(
      'semesters as s',
    )
      .leftJoin('programs as p', 'p.id', 's.program_id')
      .where('s.id', id)
      .first('s.id', 's.name', 's.academic_period_id', 'p.short_name');
    return row ? { id: row.id, name: row.name, academicPeriodId: row.academic_period_id, programShortName: row.short_name } : null;
  }

  /** The period's occurrences starting in [from, to). */
  occurrences(periodId: string, from: Date, to: Date): Promise<FeedOccurrenceRow[]> {
    return this.feedRows((query) => {
      query.where('o.period_id', periodId);
    }, from, to);
  }

  /** The occurrences starting in [from, to) that the week views' filter keeps. */
  matching(filter: OccurrenceFilter, from: Date, to: Date): Promise<FeedOccurrenceRow[]> {
    return this.feedRows((query) => whereOccurrenceMatches(this.knex, query, filter), from, to);
  }

  async selectionNames(filter: OccurrenceFilter): Promise<SelectionNames> {
    const names = async (list: keyof OccurrenceFilter): Promise<string[]> => {
      const ids = filter[list];
      if (!ids) return [];
      const rows: { name: string }[] = await this.knex(NAMED_TABLE[list]).whereRaw('id = any(?)', [ids]).select('name').orderByRaw('lower(name), name');
      return rows.map((row) => row.name);
    };
    const [groupIds, courseIds, roomIds, instructorIds] = await Promise.all([names('groupIds'), names('courseIds'), names('roomIds'), names('instructorIds')]);
    return { groupIds, courseIds, roomIds, instructorIds };
  }

  // The same two reads for every feed, so a VEVENT reads the same in each feed that holds it: the selected
  // occurrences in order, then their events once each, with room and instructor names aggregated per event.
  // Two reads rather than one join: right after a sync the tables have no statistics yet, and the planner,
  // expecting a handful of rows, joined occurrences to events in a nested loop that grew with the square of
  // the feed (half a second for 2,500 occurrences). Looking events up by a list of ids is linear whatever the
  // estimates.
  private async feedRows(select: (query: Knex.QueryBuilder) => void, from: Date, to: Date): Promise<FeedOccurrenceRow[]> {
    const selected = this.knex('occurrences as o')
      .select('o.event_id', 'o.start_time', 'o.end_time', 'o.local_date')
      .where('o.start_time', '>=', from)
      .andWhere('o.start_time', '<', to)
      .orderBy([{ column: 'o.start_time' }, { column: 'o.event_id' }]);
    select(selected);
    const occurrences: OccurrenceTimes[] = await selected;
    if (occurrences.length === 0) return [];
    const eventIds = [...new Set(occurrences.map((occurrence) => occurrence.event_id))];
    const result = await this.knex.raw<{ rows: FeedEventRow[] }>(
      `select e.id, coalesce(c.name, e.title) as summary, e.location, e.sequence, e.updated_at,
         (select string_agg(r.name, ', ' order by er.position)
            from event_rooms er join rooms r on r.id = er.room_id where er.event_id = e.id) as room_names,
         (select string_agg(i.name, ', ' order by ei.position)
            from event_instructors ei join instructors i on i.id = ei.instructor_id where ei.event_id = e.id) as instructor_names
       from events e
       left join courses c on c.id = e.course_id
       where e.id = any(?)`,
      [eventIds],
    );
    const events = new Map(result.rows.map((event) => [event.id, event]));
    // An event removed between the two reads takes its occurrences with it, as if read a moment later.
    return occurrences.flatMap((occurrence) => {
      const event = events.get(occurrence.event_id);
      if (!event) return [];
      const { id: _id, ...fields } = event;
      return [{ ...occurrence, ...fields }];
    });
  }
}
