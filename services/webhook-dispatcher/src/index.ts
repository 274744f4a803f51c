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
export { generateSecretsKey, parseSecretsKey, SecretCipher } from './features/secrets/secret-cipher.js';
// The store alone, for measuring the database side of dispatch without the dispatcher (bench:webhook-store).
export { DeliveryStore, type AttemptRecord, type ClaimedDelivery } from './features/delivery/delivery-store.js';
export { verifyWebhookSignature, SIGNATURE_TOLERANCE_SECONDS } from './features/signing/verify-webhook-signature.js';
// deliveryHeaders also for bench:webhooks' bare loop, which sends a delivery's headers.
export { deliveryHeaders, signPayload, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './features/signing/sign-payload.js';
