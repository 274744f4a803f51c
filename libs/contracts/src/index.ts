export {
  entitySchemas,
  ENTITY_TYPES,
  type EntityType,
  type ProgramData,
  type SemesterData,
  type AcademicPeriodData,
  type CourseData,
  type RoomData,
  type InstructorData,
  type EventData,
  type EntityDataByType,
} from './entities/entity-data.js';
export {
  topics,
  ALL_TOPICS,
  entityKey,
  type ChangeEvent,
  type EntityState,
  type UsageEvent,
  type TopicDefinition,
} from './events/topics.js';
export { topicJsonSchema } from './events/topic-json-schema.js';
export { topicDocumentation, type CloudEventHeaders, type TopicDocumentation } from './events/topic-documentation.js';
export type { ApiRoute, ResponseSpec, RouteGroup, RouteSpec, ServiceName } from './api/api-route.js';
export { allApiRoutes } from './api/all-routes.js';
export { RouteMatcher, expressPath, bySpecificity, firstSegment } from './api/route-paths.js';
export { toleratingControlCharacters, toleratesControlCharacters } from './api/malformed-values.js';
export { INTERNAL_ROUTES, type KeyVerifier, type WebhookCounter } from './internal/internal-ports.js';
export { changesApi, type ChangeRecord, type ChangeListQuery } from './api/changes-routes.js';
export { developersApi, developerUsageApi, type RegisterDeveloperBody } from './api/developer-routes.js';
export {
  RECOVER_MAX_DAYS,
  webhooksApi,
  type WebhookCreateInput,
  type WebhookUpdateInput,
  type WebhookResource,
  type DeliveryResource,
  type DeliveriesQuery,
  type RecoverInput,
} from './api/webhook-routes.js';
export type {
  ProgramResource,
  SemesterResource,
  CourseResource,
  RoomResource,
  InstructorResource,
  OccurrenceResource,
  WeekOccurrenceResource,
  WeekResponse,
  RoomScheduleEntry,
  SearchResults,
  CatalogStatistics,
} from './api/catalog-resources.js';
export {
  occurrenceFilterQuery,
  programsApi,
  semestersApi,
  coursesApi,
  roomsApi,
  instructorsApi,
  searchApi,
  statisticsApi,
  weekApi,
  type SearchKind,
} from './api/catalog-routes.js';
export { PERSONAL_FEED_MAX_IDS, calendarApi } from './api/calendar-routes.js';
export { freeRoomsApi, type FreeRoomsQuery, type FreeRoomsResponse } from './api/free-rooms-routes.js';
export {
  syncStatusApi,
  upstreamCalendarApi,
  type SyncStatusResource,
  type SemesterCalendarUrlResource,
} from './api/sync-routes.js';
