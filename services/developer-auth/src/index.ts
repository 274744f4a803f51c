export { createDeveloperAuthService, type DeveloperAuthModule, type DeveloperAuthServiceDeps } from './create-developer-auth-service.js';
export { developerAuthMigrations, DEVELOPER_AUTH_SCHEMA } from './migrations/index.js';
export { loadDeveloperAuthConfig, type DeveloperAuthConfig } from './config.js';
export { HttpWebhookCounter } from './features/developers/http-webhook-counter.js';
export { developerAuthService, type DeveloperAuthOverrides } from './developer-auth-service.js';
