import { Router } from 'express';
import type { Cache } from '@timetable/cache';
import { isDatabaseReachable, type Knex } from '@timetable/db';
import { consumerReadiness, type EventBus } from '@timetable/events';
import type { ServiceModule } from '@timetable/http';
import type { Logger } from '@timetable/observability';
import { ResponseCache } from './http/cached-response.js';
import { coursesController } from './features/courses/courses-controller.js';
import { CoursesService } from './features/courses/courses-service.js';
import { CoursesStore } from './features/courses/courses-store.js';
import { freeRoomsController } from './features/free-rooms/free-rooms-controller.js';
import { FreeRoomsStore } from './features/free-rooms/free-rooms-store.js';
import { icalController } from './features/ical/ical-controller.js';
import { IcalService } from './features/ical/ical-service.js';
import { IcalStore } from './features/ical/ical-store.js';
import { instructorsController } from './features/instructors/instructors-controller.js';
import { InstructorsService } from './features/instructors/instructors-service.js';
import { InstructorsStore } from './features/instructors/instructors-store.js';
import { EventListingStore } from './features/event-listings/event-listing-store.js';
import { programsController } from './features/programs/programs-controller.js';
import { ProgramsService } from './features/programs/programs-service.js';
import { ProgramsStore } from './features/programs/programs-store.js';
import { CatalogInvalidation } from './features/projection/catalog-invalidation.js';
import { subscribeProjection } from './features/projection/projection-consumer.js';
import { ProjectionService } from './features/projection/projection-service.js';
import { ProjectionStore } from './features/projection/projection-store.js';
import { roomsController } from './features/rooms/rooms-controller.js';
import { RoomsService } from './features/rooms/rooms-service.js';
import { RoomsStore } from './features/rooms/rooms-store.js';
import { searchController } from './features/search/search-controller.js';
import { SearchService } from './features/search/search-service.js';
import { SearchStore } from './features/search/search-store.js';
import { semestersController } from './features/semesters/semesters-controller.js';
import { SemestersService } from './features/semesters/semesters-service.js';
import { SemestersStore } from './features/semesters/semesters-store.js';
import { statisticsController } from './features/statistics/statistics-controller.js';
import { StatisticsStore } from './features/statistics/statistics-store.js';
import { weekController } from './features/week/week-controller.js';
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
  const { knex, logger, timeZone } = deps;
  const now = deps.now ?? (() => new Date());
  const responses = new ResponseCache(deps.cache, logger);
  const listings = new EventListingStore(knex);
  const semesters = new SemestersStore(knex);
  const invalidation = new CatalogInvalidation(deps.cache, logger);
  const projection = new ProjectionService({ store: new ProjectionStore(knex), invalidation, logger, timeZone });
  const consumer = subscribeProjection(deps.bus, projection);

  const routes = Router();
  routes.use(programsController(new ProgramsService(new ProgramsStore(knex), semesters, listings)));
  routes.use(semestersController(new SemestersService(semesters, listings), responses));
  routes.use(coursesController(new CoursesService(new CoursesStore(knex))));
  // Before the rooms routes: /rooms/free must not reach /rooms/:id.
  routes.use(freeRoomsController(new FreeRoomsStore(knex), responses));
  routes.use(roomsController(new RoomsService(new RoomsStore(knex), now)));
  routes.use(instructorsController(new InstructorsService(new InstructorsStore(knex), listings)));
  routes.use(searchController(new SearchService(new SearchStore(knex))));
  routes.use(statisticsController(new StatisticsStore(knex)));
  routes.use(weekController(new WeekService(new WeekStore(knex), timeZone, now), responses));
  routes.use(icalController(new IcalService({ store: new IcalStore(knex), icalDomain: deps.icalDomain, now }), responses));

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
