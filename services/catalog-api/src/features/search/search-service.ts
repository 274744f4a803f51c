import type { SearchKind, SearchResults } from '@timetable/contracts';
import type { SearchStore } from './search-store.js';

export const SEARCH_BUCKET_LIMIT = 20;
export const SEARCH_MIN_LENGTH = 2;

export interface SearchServiceDeps {
  store: SearchStore;
}

export class SearchService {
  private readonly store: SearchStore;

  constructor(deps: SearchServiceDeps) {
    this.store = deps.store;
  }

  /** Fewer than 2 characters: four empty buckets. With a type, only that bucket is searched. */
  async search(rawTerm: string, type: SearchKind | undefined): Promise<SearchResults> {
    const term = rawTerm.trim();
    const results: SearchResults = { courses: [], rooms: [], instructors: [], programs: [] };
    if (term.length < SEARCH_MIN_LENGTH) return results;
    const wanted = (kind: SearchKind) => type === undefined || type === kind;
    const limit = SEARCH_BUCKET_LIMIT;
    const [courses, rooms, instructors, programs] = await Promise.all([
      wanted('course') ? this.store.courses(term, limit) : [],
      wanted('room') ? this.store.rooms(term, limit) : [],
      wanted('instructor') ? this.store.instructors(term, limit) : [],
      wanted('program') ? this.store.programs(term, limit) : [],
    ]);
    return { courses, rooms, instructors, programs };
  }
}
