import type { InstructorResource, OccurrenceResource } from '@timetable/contracts';
import { NotFoundError } from '@timetable/http';
import { isUuid } from '../../http/query-values.js';
import type { OccurrenceStore } from '../occurrences/occurrence-store.js';
import type { InstructorsStore } from './instructors-store.js';

export class InstructorsService {
  constructor(
    private readonly instructors: InstructorsStore,
    private readonly occurrences: OccurrenceStore,
  ) {}

  list(search: string | undefined): Promise<InstructorResource[]> {
    return this.instructors.list({ search });
  }

  async get(id: string): Promise<InstructorResource> {
    const instructor = isUuid(id) ? await this.instructors.byId(id) : null;
    if (!instructor) throw new NotFoundError('instructor', id);
    return instructor;
  }

  /** Every occurrence of the events the instructor teaches, alone or with others. */
  async courses(id: string): Promise<{ instructor: InstructorResource; occurrences: OccurrenceResource[] }> {
    const instructor = await this.get(id);
    return { instructor, occurrences: await this.occurrences.forInstructor(instructor.id) };
  }
}
