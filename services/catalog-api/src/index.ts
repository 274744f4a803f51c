export { createCatalogService, type CatalogServiceDeps } from './create-catalog-service.js';
export { CATALOG_SCHEMA, catalogMigrations } from './migrations/index.js';
export { loadCatalogConfig, icalDomainOf, type CatalogConfig } from './config.js';
export { catalogApiService, type CatalogOverrides, type CatalogSettings } from './catalog-api-service.js';
