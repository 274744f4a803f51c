export { createChangesService, type ChangesServiceDeps } from './create-changes-service.js';
export { changesMigrations, CHANGES_SCHEMA } from './migrations/index.js';
export { loadChangesConfig, type ChangesConfig } from './config.js';
export { changesService } from './changes-service.js';
