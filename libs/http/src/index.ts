export * from './errors.js';
export { errorBody, errorEnvelope, routeNotFound, type ErrorBody } from './error-envelope.js';
export { parseInput, validationDetails } from './validation.js';
export { createServiceApp, API_PREFIX, type ServiceAppOptions } from './create-service-app.js';
export { operationalRoutes, type ReadinessCheck } from './operational-routes.js';
export { listen, type RunningServer } from './http-server.js';
export { requestId } from './request-id.js';
export type { ServiceModule } from './service-module.js';
export { DeveloperIdentity, requireDeveloper, developerIdOf, IDENTITY_HEADER, IDENTITY_SIGNATURE_HEADER } from './developer-identity.js';
