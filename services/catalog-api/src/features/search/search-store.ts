import type { SearchResults } from '@timetable/contracts';
import type { Knex } from '@timetable/db';
import { containsPattern } from '../../sql/contains-pattern.js';

export interface SearchStoreDeps {
  /** On the catalog schema. */
  knex: Knex;
}

/** Each bucket's case-insensitive contains match, sorted by name, at most `limit` rows. */
export class SearchStore {
  private readonly knex: Knex;

  constructor(deps: SearchStoreDeps) {
    this.knex = deps.knex;
  }

  courses(term: string, limit: number): Promise<SearchResults['courses']> {
    const pattern = containsPattern(term);
    return this.knex('courses')
      .select('id', 'name', 'code')
      .where((match) => {
        match.whereILike('name', pattern).orWhereILike('code', pattern);
      })
      .orderByRaw('lower(name), name, id')
      .limit(limit);
  }

  rooms(term: string, limit: number): Promise<SearchResults['rooms']> {
    return this.knex('rooms')
      .select('id', 'name', 'building')
      .whereILike('name', containsPattern(term))
      .orderByRaw('lower(name), name, id')
      .limit(limit);
  }

  instructors(term: string, limit: number): Promise<SearchResults['instructors']> {
    return this.knex('instructors')
      .select('id', 'name', 'email')
      .whereILike('name', containsPattern(term))
      .orderByRaw('lower(name), name, id')
      .limit(limit);
  }

  /** Active programs only, like the default program list. */
  programs(term: string, limit: number): Promise<SearchResults['programs']> {
    const pattern = containsPattern(term);
    return this.knex('programs')
      .select('id', 'name', 'short_name as shortName', 'degree_type as degreeType')
      .where('is_active', true)
      .where((match) => {
        match.whereILike('name', pattern).orWhereILike('short_name', pattern);
      })
      .orderByRaw('lower(name), name, id')
      .limit(limit);
  }
}
