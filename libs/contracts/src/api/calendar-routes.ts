import { z } from 'zod';
import { defineRoutes } from './api-route.js';
import { occurrenceFilterQuery } from './catalog-routes.js';

const TAG = 'Calendar feeds';
/** Ids a personal feed may list in all four filters together. */
export const PERSONAL_FEED_MAX_IDS = 100;
const feed = {
  description:
    'One VEVENT per occurrence starting in the next 365 days, times in UTC, no RRULE; REFRESH-INTERVAL and X-PUBLISHED-TTL of ' +
    'one hour. An ETag and a Last-Modified (the newest change of any event in the feed, moved on to when the content was first ' +
    'served whenever it changes without such a change, e.g. an event deleted; an empty feed: when it was first served empty). ' +
    '304 on a matching If-None-Match, or without one on an If-Modified-Since at or after Last-Modified',
  contentType: 'text/calendar',
  schema: z.string(),
};
const notModified = { description: 'Not modified: If-None-Match matches, or (without it) If-Modified-Since is at or after Last-Modified' };

export const calendarApi = defineRoutes('catalog-api', {
  personalFeed: {
    method: 'get',
    path: '/ical',
    summary: 'Personal iCalendar feed: the occurrences the filters select',
    tag: TAG,
    auth: false,
    query: occurrenceFilterQuery,
    responses: {
      200: {
        ...feed,
        description:
          `${feed.description}. The filters are the week views': lists intersect, an occurrence matches a list when it matches one ` +
          'of its ids. Each occurrence has the UID it has in its semester feed; X-WR-CALNAME names the selection',
      },
      304: notModified,
      400: { description: `No id in any filter, or more than ${PERSONAL_FEED_MAX_IDS} ids in all` },
    },
  },
  semesterFeed: {
    method: 'get',
    path: '/ical/{semesterId}',
    summary: "iCalendar feed of the semester's next 365 days",
    tag: TAG,
    auth: false,
    params: z.object({ semesterId: z.string() }),
    responses: { 200: feed, 304: notModified, 404: { description: 'Unknown or malformed id' } },
  },
});
