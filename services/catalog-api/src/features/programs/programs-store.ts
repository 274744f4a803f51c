import type { ProgramResource } from '@timetable/contracts';
import type { Knex } from '@timetable/db';
import { containsPattern } from '../../sql/contains-pattern.js';

export interface ProgramFilter {
  search?: string;
  degreeType?: string;
  active: boolean;
}

interface ProgramRow {
  id: string;
  name: string;
  short_name: string;
  degree_type: string;
  faculty_id: string;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
}

function toProgram(row: ProgramRow): ProgramResource {
  return {
    id: row.id,
    name: row.name,
    shortName: row.short_name,
    degreeType: row.degree_type,
    facultyId: row.faculty_id,
    isActive: row.is_active,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export interface ProgramsStoreDeps {
  /** On the catalog schema. */
  knex: Knex;
}

export class ProgramsStore {
  private readonly knex: Knex;

  constructor(deps: ProgramsStoreDeps) {
    this.knex = deps.knex;
  }

  async list(filter: ProgramFilter): Promise<ProgramResource[]> {
    const query = this.knex<ProgramRow>('programs').where('is_active', filter.active).orderByRaw('lower(name), name, id');
    if (filter.search !== undefined) query.whereILike('name', containsPattern(filter.search));
    if (filter.degreeType !== undefined) query.where('degree_type', filter.degreeType);
    const rows: ProgramRow[] = await query;
    return rows.map(toProgram);
  }

  async byId(id: string): Promise<ProgramResource | null> {
    const row: ProgramRow | undefined = await this.knex<ProgramRow>('programs').where('id', id).first();
    return row ? toProgram(row) : null;
  }
}
