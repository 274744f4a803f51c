import type { Router } from 'express';
import { calendarApi, PERSONAL_FEED_MAX_IDS } from '@timetable/contracts';
import { contractRouter, ValidationError } from '@timetable/http';
import type { ResponseCache } from '../../http/response-cache.js';
import { parseOccurrenceFilter, type ParsedOccurrenceFilter } from '../../http/occurrence-filter-query.js';
import type { FeedDates } from './feed-dates.js';
import type { IcalService } from './ical-service.js';

const FEED_MAX_AGE_SECONDS = 600;
const FEED_HEADERS = { contentType: 'text/calendar; charset=utf-8', cacheControl: `public, max-age=${FEED_MAX_AGE_SECONDS}`, ttlSeconds: FEED_MAX_AGE_SECONDS };

// A personal feed without a filter would be the whole university: refused, like an oversized selection.
function assertPersonalSelection(selection: ParsedOccurrenceFilter): void {
  if (selection.idCount === 0) {
    throw new ValidationError('A personal feed needs at least one id in courseIds, groupIds, roomIds or instructorIds');
  }
  if (selection.idCount > PERSONAL_FEED_MAX_IDS) {
    throw new ValidationError(`A personal feed lists at most ${PERSONAL_FEED_MAX_IDS} ids in all, got ${selection.idCount}`, {
      ids: selection.idCount,
      maxIds: PERSONAL_FEED_MAX_IDS,
    });
  }
}

export interface IcalRoutesDeps {
  service: IcalService;
  dates: FeedDates;
  responses: ResponseCache;
}

export function icalRoutes({ service, dates, responses }: IcalRoutesDeps): Router {
  // Only the bare path and one segment: /ical/<id>/url belongs to sync.
  return contractRouter(calendarApi, {
    async personalFeed({ req, res, query }) {
      const selection = parseOccurrenceFilter(query());
      assertPersonalSelection(selection);
      const key = `ical-personal:${selection.key}`;
      await responses.send(req, res, { key, ...FEED_HEADERS, render: async () => dates.dated(key, await service.personalFeed(selection.filter)) });
    },
    async semesterFeed({ req, res, params: { semesterId } }) {
      const key = `ical:${semesterId}`;
      await responses.send(req, res, { key, ...FEED_HEADERS, render: async () => dates.dated(key, await service.feed(semesterId)) });
    },
  });
}
