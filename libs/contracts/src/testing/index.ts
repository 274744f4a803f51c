/**
 * For tests that need routes of their own, outside the real API: the function that declares a route group
 * and stamps its owner on each route. Production route groups are all declared inside this package.
 */
export { defineRoutes } from '../api/api-route.js';
