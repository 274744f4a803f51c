import { Router } from 'express';
import type { Cache } from '@timetable/cache';
import { isDatabaseReachable, type Knex } from '@timetable/db';
import { consumerReadiness, type EventBus } from '@timetable/events';
import type { ServiceModule } from '@timetable/http';
import type { Logger } from '@timetable/observability';
import { ResponseCache } from './http/response-cache.js';
import { coursesRoutes } from './features/courses/courses-routes.js';
import { CoursesService } from './features/courses/courses-service.js';
import { CoursesStore } from './features/courses/courses-store.js';
import { freeRoomsRoutes } from './features/free-rooms/free-rooms-routes.js';
import { FreeRoomsStore } from './features/free-rooms/free-rooms-store.js';
import { FeedDates } from './features/ical/feed-dates.js';
import { FeedDatesStore } from './features/ical/feed-dates-store.js';
import { icalRoutes } from './features/ical/ical-routes.js';
import { IcalService } from './features/ical/ical-service.js';
import { IcalStore } from './features/ical/ical-store.js';
import { instructorsRoutes } from './features/instructors/instructors-routes.js';
import { InstructorsService } from './features/instructors/instructors-service.js';
import { InstructorsStore } from './features/instructors/instructors-store.js';
import { EventListingStore } from './features/event-listings/event-listing-store.js';
import { programsRoutes } from './features/programs/programs-routes.js';
import { ProgramsService } from './features/programs/programs-service.js';
import { ProgramsStore } from './features/programs/programs-store.js';
import { CatalogInvalidation } from './features/projection/catalog-invalidation.js';
import { subscribeProjection } from './features/projection/projection-consumer.js';
import { ProjectionService } from './features/projection/projection-service.js';
import { ProjectionStore } from './features/projection/projection-store.js';
import { roomsRoutes } from './features/rooms/rooms-routes.js';
import { RoomsService } from './features/rooms/rooms-service.js';
import { RoomsStore } from './features/rooms/rooms-store.js';
import { searchRoutes } from './features/search/search-routes.js';
import { SearchService } from './features/search/search-service.js';
import { SearchStore } from './features/search/search-store.js';
import { semestersRoutes } from './features/semesters/semesters-routes.js';
import { SemestersService } from './features/semesters/semesters-service.js';
import { SemestersStore } from './features/semesters/semesters-store.js';
import { statisticsRoutes } from './features/statistics/statistics-routes.js';
import { StatisticsStore } from './features/statistics/statistics-store.js';
import { weekRoutes } from './features/week/week-routes.js';
import { WeekService } from './features/week/week-service.js';
import { WeekStore } from './features/week/week-store.js';

export interface CatalogServiceDeps {
  /** On the catalog schema, already migrated (catalogMigrations). */
  knex: Knex;
  bus: EventBus;
  cache: Cache;
  logger: Logger;
  /** IANA zone of weeks and local dates (TIME_ZONE). */
  timeZone: string;
  /** Domain part of iCal UIDs (ICAL_DOMAIN). */
  icalDomain: string;
  now?: () => Date;
}

/** Composition root of the catalog: the entities projection and every catalog, free-room, week, search and iCal route. */
export function createCatalogService(deps: CatalogServiceDeps): Promise<ServiceModule> {
  const { knex, timeZone } = deps;
  const logger = deps.logger.child({ service: 'catalog-api' });
  const now = deps.now ?? (() => new Date());
  const responses = new ResponseCache({ cache: deps.cache, logger });
  const listings = new EventListingStore({ knex });
  const semesters = new SemestersStore({ knex });
  const invalidation = new CatalogInvalidation({ cache: deps.cache, logger });
  const projection = new ProjectionService({ store: new ProjectionStore({ knex }), invalidation, logger, timeZone });
  const consumer = subscribeProjection(deps.bus, projection);

  const routes = Router();
  routes.use(programsRoutes(new ProgramsService({ programs: new ProgramsStore({ knex }), semesters, listings })));
  routes.use(semestersRoutes(new SemestersService({ semesters, listings }), responses));
  routes.use(coursesRoutes(new CoursesService({ courses: new CoursesStore({ knex }) })));
  // Before the rooms routes: /rooms/free must not reach /rooms/:id.
  routes.use(freeRoomsRoutes(new FreeRoomsStore({ knex }), responses));
  routes.use(roomsRoutes(new RoomsService({ rooms: new RoomsStore({ knex }), now })));
  routes.use(instructorsRoutes(new InstructorsService({ instructors: new InstructorsStore({ knex }), listings })));
  routes.use(searchRoutes(new SearchService({ store: new SearchStore({ knex }) })));
  routes.use(statisticsRoutes(new StatisticsStore({ knex })));
  routes.use(weekRoutes(new WeekService({ store: new WeekStore({ knex }), timeZone, now }), responses));
  const feedDates = new FeedDates({ store: new FeedDatesStore({ knex }), now, logger });
  routes.use(icalRoutes({ service: new IcalService({ store: new IcalStore({ knex }), icalDomain: deps.icalDomain, now }), dates: feedDates, responses }));

  return Promise.resolve({
    name: 'catalog-api',
    routes,
    readiness: [
      { name: 'catalog-database', check: () => isDatabaseReachable(knex) },
      consumerReadiness('catalog-projection', consumer),
    ],
    start: () => consumer.start(),
    async stop() {
      await consumer.stop();
      invalidation.stop();
    },
  });
}
