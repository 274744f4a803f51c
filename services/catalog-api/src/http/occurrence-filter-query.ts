import type { z } from 'zod';
import type { occurrenceFilterQuery } from '@timetable/contracts';
import { OCCURRENCE_FILTER_NAMES, type OccurrenceFilter } from '../features/occurrences/occurrence-filter.js';
import { isUuid } from './query-values.js';

export interface ParsedOccurrenceFilter {
  filter: OccurrenceFilter;
  /** Cache key part: sorted ids make it independent of the order a client lists them in. */
  key: string;
  /** Ids in all lists together, after trimming and dropping empty entries, malformed ones included. */
  idCount: number;
}

/**
 * The id filters of the week views and the personal feed, from their parsed query. A malformed id matches
 * nothing, so it is dropped here and never reaches the database (where a NUL byte would be an error);
 * a list left empty still filters, and matches nothing.
 */
export function parseOccurrenceFilter(query: z.output<typeof occurrenceFilterQuery>): ParsedOccurrenceFilter {
  const filter: OccurrenceFilter = {};
  const keyParts: string[] = [];
  let idCount = 0;
  for (const name of OCCURRENCE_FILTER_NAMES) {
    const ids = query[name];
    if (!ids) continue;
    idCount += ids.length;
    const wellFormed = ids.filter(isUuid);
    filter[name] = wellFormed;
    keyParts.push(`${name}=${[...wellFormed].sort().join(',')}`);
  }
  return { filter, key: keyParts.join('&'), idCount };
}
