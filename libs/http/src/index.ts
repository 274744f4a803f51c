export {
  AppError,
  ConflictError,
  ForbiddenError,
  GoneError,
  NotFoundError,
  RateLimitedError,
  ServiceUnavailableError,
  UnauthorizedError,
  ValidationError,
} from './errors.js';
export { errorBody, type ErrorBody } from './error-envelope.js';
export { parseInput } from './validation.js';
export { rawBodyOf } from './json-body.js';
export { createServiceApp, API_PREFIX, type ServiceAppOptions } from './create-service-app.js';
export type { ReadinessCheck } from './operational-routes.js';
export { listen, type RunningServer } from './http-server.js';
export { requestIdOf } from './request-id.js';
export { observeRequest, routePatternOf } from './http-metrics.js';
export type { ServiceModule } from './service-module.js';
export { DeveloperIdentity, IDENTITY_HEADER } from './developer-identity.js';
export { contractRouter, type RouteCall, type RouteHandler, type RouteHandlers, type ContractRouterOptions } from './contract-routes.js';
