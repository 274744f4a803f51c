import type { OccurrenceResource, SemesterResource } from '@timetable/contracts';
import { NotFoundError } from '@timetable/http';
import { isUuid } from '../../http/query-values.js';
import type { EventListingStore } from '../event-listings/event-listing-store.js';
import type { SemestersStore } from './semesters-store.js';

export interface SemestersServiceDeps {
  semesters: SemestersStore;
  listings: EventListingStore;
}

export class SemestersService {
  private readonly semesters: SemestersStore;
  private readonly listings: EventListingStore;

  constructor(deps: SemestersServiceDeps) {
    this.semesters = deps.semesters;
    this.listings = deps.listings;
  }

  list(programId: string | undefined): Promise<SemesterResource[]> {
    return this.semesters.list({ programId });
  }

  async get(id: string): Promise<SemesterResource> {
    const semester = isUuid(id) ? await this.semesters.byId(id) : null;
    if (!semester) throw new NotFoundError('semester', id);
    return semester;
  }

  /** The events of the semester's academic period; none while it is not linked to one. */
  async eventsOf(id: string): Promise<OccurrenceResource[]> {
    const semester = await this.get(id);
    return semester.academicPeriodId === null ? [] : this.listings.forPeriods([semester.academicPeriodId]);
  }
}
