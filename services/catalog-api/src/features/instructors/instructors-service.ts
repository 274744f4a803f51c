import type { InstructorResource, OccurrenceResource } from '@timetable/contracts';
import { NotFoundError } from '@timetable/http';
import { isUuid } from '../../http/query-values.js';
import type { EventListingStore } from '../event-listings/event-listing-store.js';
import type { InstructorsStore } from './instructors-store.js';

export interface InstructorsServiceDeps {
  instructors: InstructorsStore;
  listings: EventListingStore;
}

export class InstructorsService {
  private readonly instructors: InstructorsStore;
  private readonly listings: EventListingStore;

  constructor(deps: InstructorsServiceDeps) {
    this.instructors = deps.instructors;
    this.listings = deps.listings;
  }

  list(search: string | undefined): Promise<InstructorResource[]> {
    return this.instructors.list({ search });
  }

  async get(id: string): Promise<InstructorResource> {
    const instructor = isUuid(id) ? await this.instructors.byId(id) : null;
    if (!instructor) throw new NotFoundError('instructor', id);
    return instructor;
  }

  /** The events the instructor teaches, alone or with others, one entry each. */
  async courses(id: string): Promise<{ instructor: InstructorResource; events: OccurrenceResource[] }> {
    const instructor = await this.get(id);
    return { instructor, events: await this.listings.forInstructor(instructor.id) };
  }
}
