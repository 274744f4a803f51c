import type { ApiRoute, RouteGroup } from './api-route.js';
import { calendarApi } from './calendar-routes.js';
import { coursesApi, instructorsApi, programsApi, roomsApi, searchApi, semestersApi, statisticsApi, weekApi } from './catalog-routes.js';
import { changesApi } from './changes-routes.js';
import { developersApi, developerUsageApi } from './developer-routes.js';
import { freeRoomsApi } from './free-rooms-routes.js';
import { syncStatusApi, upstreamCalendarApi } from './sync-routes.js';
import { webhooksApi } from './webhook-routes.js';

const groups: RouteGroup[] = [
  programsApi,
  semestersApi,
  coursesApi,
  roomsApi,
  freeRoomsApi,
  instructorsApi,
  searchApi,
  statisticsApi,
  weekApi,
  calendarApi,
  syncStatusApi,
  upstreamCalendarApi,
  changesApi,
  webhooksApi,
  developersApi,
  developerUsageApi,
];

/**
 * Every public route under /v1/timetable, sorted by path and method. A new group must be listed here (a test
 * fails for an exported `*Api` group that is not): the gateway's key rule, proxy table, usage patterns and
 * OpenAPI document are all built from this list.
 */
export const allApiRoutes: readonly ApiRoute[] = groups
  .flatMap((group) => Object.values(group))
  .sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
