import { z } from 'zod';
import { field, readConfig } from '@timetable/config';
import { gatewayEdgeFields } from '@timetable/gateway';
import { icalDomainOf } from '@timetable/catalog-api';
import { secretsKeyField, webhookConfigFields } from '@timetable/webhook-dispatcher';
import { syncConfigFields } from '@timetable/sync';

/** Every configuration variable the embedded mode understands (README, "Configuration"). */
const schema = z.object({
  PORT: field.port(3000),
  DATA_DIR: z.string().default('./.data'),
  DATABASE_URL: field.url().optional(),
  EMBEDDED_PG_PORT: field.port(0),
  LOG_LEVEL: field.logLevel(),
  TIME_ZONE: field.timeZone(),
  PUBLIC_BASE_URL: field.url().optional(),
  ICAL_DOMAIN: z.string().min(1).optional(),
  ...gatewayEdgeFields,
  ...webhookConfigFields,
  /** Unset: generated on first start and kept under DATA_DIR. */
  WEBHOOK_SECRETS_KEY: secretsKeyField.optional(),
  ...syncConfigFields,
});

export type StandaloneConfig = z.infer<typeof schema> & { publicBaseUrl: string; icalDomain: string };

export function loadStandaloneConfig(env: Record<string, string | undefined> = process.env): StandaloneConfig {
  const config = readConfig(schema, env);
  const publicBaseUrl = (config.PUBLIC_BASE_URL ?? `http://localhost:${config.PORT}`).replace(/\/+$/, '');
  return { ...config, publicBaseUrl, icalDomain: config.ICAL_DOMAIN ?? icalDomainOf(publicBaseUrl) };
}
