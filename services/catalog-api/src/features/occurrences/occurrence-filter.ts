import type { Knex } from '@timetable/db';

/**
 * The week views' filter rules, shared by the personal feed: each present list keeps the occurrences
 * matching one of its ids (an empty list keeps none), and the lists intersect.
 */
export interface OccurrenceFilter {
  instructorIds?: string[];
  roomIds?: string[];
  courseIds?: string[];
  /** Student groups: the semester ids of the catalog. */
  groupIds?: string[];
}

export const OCCURRENCE_FILTER_NAMES = ['instructorIds', 'roomIds', 'courseIds', 'groupIds'] as const;

/** Adds the filter to a query over `occurrences as o`. */
export function whereOccurrenceMatches(knex: Knex, query: Knex.QueryBuilder, filter: OccurrenceFilter): void {
  if (filter.courseIds) query.whereRaw('o.course_id = any(?)', [filter.courseIds]);
  if (filter.groupIds) query.whereRaw('o.semester_id = any(?)', [filter.groupIds]);
  if (filter.roomIds) whereLinked(knex, query, ROOMS, filter.roomIds);
  if (filter.instructorIds) whereLinked(knex, query, INSTRUCTORS, filter.instructorIds);
}

/** A table linking events to the rooms or instructors they have, and the column naming the linked one. */
interface EventLinks {
  table: string;
  column: string;
}

const ROOMS: EventLinks = { table: 'event_rooms', column: 'room_id' };
const INSTRUCTORS: EventLinks = { table: 'event_instructors', column: 'instructor_id' };

// Every room and instructor of an event counts, not only the first.
function whereLinked(knex: Knex, query: Knex.QueryBuilder, { table, column }: EventLinks, ids: string[]): void {
  query.whereExists((links) => {
    links
      .select(knex.raw('1'))
      .from(`${table} as link`)
      .whereRaw('link.event_id = o.event_id')
      .andWhereRaw('?? = any(?)', [`link.${column}`, ids]);
  });
}
