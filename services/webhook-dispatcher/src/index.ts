export { createWebhookService, type WebhookServiceDeps, type WebhookServiceModule } from './create-webhook-service.js';
export { webhookMigrations, WEBHOOKS_SCHEMA } from './migrations/index.js';
export {
  loadWebhookProcessConfig,
  secretsKeyField,
  webhookConfigFields,
  webhookSettingsFrom,
  type WebhookConfig,
  type WebhookProcessConfig,
  type WebhookSettings,
} from './config.js';
export type { BreakerSettings } from './features/breaker/endpoint-breakers.js';
export { generateSecretsKey, parseSecretsKey } from './features/secrets/secret-cipher.js';
export { verifyWebhookSignature, SIGNATURE_TOLERANCE_SECONDS } from './features/signing/verify-webhook-signature.js';
export { signPayload, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './features/signing/sign-payload.js';
export { webhookDispatcherService, type WebhookDispatcherOverrides } from './webhook-dispatcher-service.js';
