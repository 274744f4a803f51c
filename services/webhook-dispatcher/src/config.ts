import { z } from 'zod';
import { field, readConfig, serviceProcessFields } from '@timetable/config';
import type { BreakerSettings } from './features/breaker/endpoint-breakers.js';
import { parseCidr } from './features/addresses/ip-address.js';
import { parseSecretsKey } from './features/secrets/secret-cipher.js';

const cidrList = field.commaList().pipe(
  z.array(z.string().refine(isCidr, 'must be CIDR ranges such as 10.0.0.0/8 or fd00::/8, comma-separated')),
);

export const secretsKeyField = z.string({ error: 'is required: 32 bytes in base64, e.g. the output of `openssl rand -base64 32`' }).refine(isSecretsKey, 'must be 32 bytes in base64, e.g. the output of `openssl rand -base64 32`');

/**
 * The dispatcher's variables (README, "Configuration"). A composition root spreads these fields into its
 * own config schema and turns the parsed values into service deps with `webhookSettingsFrom`; the secrets
 * key is not among them because each run mode gets it its own way.
 */
export const webhookConfigFields = {
  DELIVERY_INTERVAL_SECONDS: field.positiveSeconds(30),
  DELIVERY_RETRY_DELAYS_SECONDS: field.secondsList('60,300,900'),
  DELIVERY_TIMEOUT_MS: field.positiveInteger(30_000),
  DELIVERY_HOST_CONCURRENCY: field.positiveInteger(4),
  DELIVERY_RETENTION_DAYS: field.positiveInteger(30),
  // Fractions allowed (0.5 is half an hour, half a day): a trial run or a test can use minutes.
  DELIVERY_MAX_PENDING_HOURS: z.coerce.number().positive().default(72),
  WEBHOOK_DISABLE_AFTER_DAYS: z.coerce.number().positive().default(5),
  MAX_WEBHOOKS_PER_DEVELOPER: field.positiveInteger(25),
  BREAKER_MIN_REQUESTS: field.positiveInteger(10),
  BREAKER_FAILURE_PERCENT: z.coerce.number().gt(0).max(100).default(70),
  BREAKER_OPEN_SECONDS: field.positiveSeconds(30),
  WEBHOOK_ALLOW_CIDRS: cidrList.default([]),
  WEBHOOK_DENY_CIDRS: cidrList.default([]),
};

export type WebhookConfig = z.infer<z.ZodObject<typeof webhookConfigFields>>;

/** The dispatcher as its own process: its store, Kafka, the gateway's identity secret and the secrets key. */
const processSchema = z.object({
  ...serviceProcessFields(3004),
  ...webhookConfigFields,
  INTERNAL_AUTH_SECRET: z.string().min(16, 'must be at least 16 characters'),
  WEBHOOK_SECRETS_KEY: secretsKeyField,
});

export type WebhookProcessConfig = z.infer<typeof processSchema>;

export function loadWebhookProcessConfig(env: Record<string, string | undefined> = process.env): WebhookProcessConfig {
  return readConfig(processSchema, env);
}

export interface WebhookSettings {
  intervalSeconds: number;
  retryDelaysSeconds: number[];
  timeoutMs: number;
  hostConcurrency: number;
  retentionDays: number;
  maxPendingHours: number;
  disableAfterDays: number;
  maxWebhooksPerDeveloper: number;
  breaker: BreakerSettings;
  allowCidrs: string[];
  denyCidrs: string[];
}

export function webhookSettingsFrom(config: WebhookConfig): WebhookSettings {
  return {
    intervalSeconds: config.DELIVERY_INTERVAL_SECONDS,
    retryDelaysSeconds: config.DELIVERY_RETRY_DELAYS_SECONDS,
    timeoutMs: config.DELIVERY_TIMEOUT_MS,
    hostConcurrency: config.DELIVERY_HOST_CONCURRENCY,
    retentionDays: config.DELIVERY_RETENTION_DAYS,
    maxPendingHours: config.DELIVERY_MAX_PENDING_HOURS,
    disableAfterDays: config.WEBHOOK_DISABLE_AFTER_DAYS,
    maxWebhooksPerDeveloper: config.MAX_WEBHOOKS_PER_DEVELOPER,
    breaker: {
      minRequests: config.BREAKER_MIN_REQUESTS,
      failurePercent: config.BREAKER_FAILURE_PERCENT,
      openSeconds: config.BREAKER_OPEN_SECONDS,
    },
    allowCidrs: config.WEBHOOK_ALLOW_CIDRS,
    denyCidrs: config.WEBHOOK_DENY_CIDRS,
  };
}

function isCidr(value: string): boolean {
  try {
    parseCidr(value);
    return true;
  } catch {
    return false;
  }
}

function isSecretsKey(value: string): boolean {
  try {
    parseSecretsKey(value);
    return true;
  } catch {
    return false;
  }
}
