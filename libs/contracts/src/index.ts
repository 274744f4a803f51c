export * from './entities/entity-data.js';
export * from './events/topics.js';
export type { ApiRoute } from './api/api-route.js';
export * from './internal/internal-ports.js';
