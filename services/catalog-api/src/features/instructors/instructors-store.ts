import type { InstructorResource } from '@timetable/contracts';
import type { Knex } from '@timetable/db';
import { containsPattern } from '../../sql/contains-pattern.js';

interface InstructorRow {
  id: string;
  name: string;
  email: string;
  tags: string[];
}

function toInstructor(row: InstructorRow): InstructorResource {
  return { id: row.id, name: row.name, email: row.email, tags: row.tags };
}

export interface InstructorsStoreDeps {
  /** On the catalog schema. */
  knex: Knex;
}

export class InstructorsStore {
  private readonly knex: Knex;

  constructor(deps: InstructorsStoreDeps) {
    this.knex = deps.knex;
  }

  async list(filter: { search?: string }): Promise<InstructorResource[]> {
    const query = this.knex<InstructorRow>('instructors').orderByRaw('lower(name), name, id');
    if (filter.search !== undefined) query.whereILike('name', containsPattern(filter.search));
    const rows: InstructorRow[] = await query;
    return rows.map(toInstructor);
  }

  async byId(id: string): Promise<InstructorResource | null> {
    const row: InstructorRow | undefined = await this.knex<InstructorRow>('instructors').where('id', id).first();
    return row ? toInstructor(row) : null;
  }
}
