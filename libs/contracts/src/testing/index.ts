/**
 * What tests reach inside the contracts for, kept out of the public index: the function that declares a
 * route group, for routes of their own outside the real API (every production group is declared here); and
 * the schemas they check messages and answers against, which services reach through the topics and routes.
 */
export { defineRoutes } from '../api/api-route.js';
export { changeEvent, entityState } from '../events/topics.js';
export { changeListQuery } from '../api/changes-routes.js';
export { semesterCalendarUrlResource, syncStatusResource } from '../api/sync-routes.js';
