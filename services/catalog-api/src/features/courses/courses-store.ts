import type { CourseResource } from '@timetable/contracts';
import type { Knex } from '@timetable/db';
import { containsPattern } from '../../sql/contains-pattern.js';

export interface CourseFilter {
  search?: string;
  periodId?: string;
}

interface CourseRow {
  id: string;
  name: string;
  code: string;
  parent_id: string | null;
  metadata: Record<string, unknown>;
}

function toCourse(row: CourseRow): CourseResource {
  return { id: row.id, name: row.name, code: row.code, parentId: row.parent_id, metadata: row.metadata };
}

export interface CoursesStoreDeps {
  /** On the catalog schema. */
  knex: Knex;
}

export class CoursesStore {
  private readonly knex: Knex;

  constructor(deps: CoursesStoreDeps) {
    this.knex = deps.knex;
  }

  async list(filter: CourseFilter): Promise<CourseResource[]> {
    const query = this.knex<CourseRow>('courses as c')
      .select('c.id', 'c.name', 'c.code', 'c.parent_id', 'c.metadata')
      .orderByRaw('lower(c.name), c.name, c.code, c.id');
    if (filter.search !== undefined) query.whereILike('c.name', containsPattern(filter.search));
    if (filter.periodId !== undefined) {
      const periodId = filter.periodId;
      // A shared lecture belongs to every period whose feed schedules it, not only to its home group's.
      query.whereExists((events) => {
        events.select(this.knex.raw('1')).from('events as e').whereRaw('e.course_id = c.id').andWhere('e.period_id', periodId);
      });
    }
    const rows: CourseRow[] = await query;
    return rows.map(toCourse);
  }

  async byId(id: string): Promise<CourseResource | null> {
    const row: CourseRow | undefined = await this.knex<CourseRow>('courses').where('id', id).first();
    return row ? toCourse(row) : null;
  }
}
