import type { OccurrenceResource, ProgramResource, SemesterResource } from '@timetable/contracts';
import { NotFoundError } from '@timetable/http';
import { isUuid } from '../../http/query-values.js';
import type { EventListingStore } from '../event-listings/event-listing-store.js';
import type { SemestersStore } from '../semesters/semesters-store.js';
import type { ProgramFilter, ProgramsStore } from './programs-store.js';

export interface ProgramsServiceDeps {
  programs: ProgramsStore;
  semesters: SemestersStore;
  listings: EventListingStore;
}

export class ProgramsService {
  private readonly programs: ProgramsStore;
  private readonly semesters: SemestersStore;
  private readonly listings: EventListingStore;

  constructor(deps: ProgramsServiceDeps) {
    this.programs = deps.programs;
    this.semesters = deps.semesters;
    this.listings = deps.listings;
  }

  list(filter: ProgramFilter): Promise<ProgramResource[]> {
    return this.programs.list(filter);
  }

  async get(id: string): Promise<ProgramResource> {
    const program = isUuid(id) ? await this.programs.byId(id) : null;
    if (!program) throw new NotFoundError('program', id);
    return program;
  }

  async semestersOf(id: string): Promise<SemesterResource[]> {
    await this.get(id);
    return this.semesters.list({ programId: id });
  }

  /** The union over the academic periods its semesters are linked to. */
  async eventsOf(id: string): Promise<OccurrenceResource[]> {
    await this.get(id);
    const semesters = await this.semesters.list({ programId: id });
    const periodIds = semesters.flatMap((semester) => (semester.academicPeriodId === null ? [] : [semester.academicPeriodId]));
    return this.listings.forPeriods([...new Set(periodIds)]);
  }
}
