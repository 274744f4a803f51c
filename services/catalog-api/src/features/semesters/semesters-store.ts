import type { SemesterResource } from '@timetable/contracts';
import type { Knex } from '@timetable/db';

interface SemesterRow {
  id: string;
  program_id: string;
  name: string;
  number: number;
  academic_period_id: string | null;
  created_at: Date;
  updated_at: Date;
  program_name: string | null;
  program_short_name: string | null;
}

function toSemester(row: SemesterRow): SemesterResource {
  return {
    id: row.id,
    programId: row.program_id,
    name: row.name,
    number: row.number,
    academicPeriodId: row.academic_period_id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    program:
      row.program_name === null ? null : { id: row.program_id, name: row.program_name, shortName: row.program_short_name ?? '' },
  };
}

export interface SemestersStoreDeps {
  /** On the catalog schema. */
  knex: Knex;
}

/** Semesters always come with their program ({id, name, shortName}), joined in the same query. */
export class SemestersStore {
  private readonly knex: Knex;

  constructor(deps: SemestersStoreDeps) {
    this.knex = deps.knex;
  }

  async list(filter: { programId?: string }): Promise<SemesterResource[]> {
    const query = this.select().orderByRaw('lower(p.name), s.program_id, s.number, s.id');
    if (filter.programId !== undefined) query.where('s.program_id', filter.programId);
    const rows: SemesterRow[] = await query;
    return rows.map(toSemester);
  }

  async byId(id: string): Promise<SemesterResource | null> {
    const row: SemesterRow | undefined = await this.select().where('s.id', id).first();
    return row ? toSemester(row) : null;
  }

  private select(): Knex.QueryBuilder {
    return this.knex('semesters as s')
      .leftJoin('programs as p', 'p.id', 's.program_id')
      .select(
        's.id',
        's.program_id',
        's.name',
        's.number',
        's.academic_period_id',
        's.created_at',
        's.updated_at',
        'p.name as program_name',
        'p.short_name as program_short_name',
      );
  }
}
