export { createDeveloperAuthService, type DeveloperAuthModule, type DeveloperAuthServiceDeps } from './create-developer-auth-service.js';
export { developerAuthMigrations, DEVELOPER_AUTH_SCHEMA } from './migrations/developer-auth-migrations.js';
