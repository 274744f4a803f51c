import type { OccurrenceResource, SemesterResource } from '@timetable/contracts';
import { NotFoundError } from '@timetable/http';
import { isUuid } from '../../http/query-values.js';
import type { OccurrenceStore } from '../occurrences/occurrence-store.js';
import type { SemestersStore } from './semesters-store.js';

export class SemestersService {
  constructor(
    private readonly semesters: SemestersStore,
    private readonly occurrences: OccurrenceStore,
  ) {}

  list(programId: string | undefined): Promise<SemesterResource[]> {
    return this.semesters.list({ programId });
  }

  async get(id: string): Promise<SemesterResource> {
    const semester = isUuid(id) ? await this.semesters.byId(id) : null;
    if (!semester) throw new NotFoundError('semester', id);
    return semester;
  }

  /** The occurrences of the semester's academic period; none while it is not linked to one. */
  async occurrencesOf(id: string): Promise<OccurrenceResource[]> {
    const semester = await this.get(id);
    return semester.academicPeriodId === null ? [] : this.occurrences.forPeriods([semester.academicPeriodId]);
  }
}
