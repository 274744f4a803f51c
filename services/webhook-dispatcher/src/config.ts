import { BlockList, isIPv4 } from 'node:net';
import { z } from 'zod';
import { field, readConfig, serviceProcessFields } from '@timetable/config';
import type { BreakerSettings } from './features/breaker/host-breakers.js';

const cidr = z.string().refine(isCidr, 'must be a CIDR such as 169.254.0.0/16');

/**
 * The dispatcher's variables (DESIGN.md section 7 and 6). A composition root spreads these fields into
 * its own config schema and turns the parsed values into service deps with `webhookSettingsFrom`.
 */
export const webhookConfigFields = {
  DELIVERY_INTERVAL_SECONDS: field.positiveSeconds(30),
  DELIVERY_RETRY_DELAYS_SECONDS: field.secondsList('60,300,900'),
  DELIVERY_TIMEOUT_MS: field.positiveInteger(30_000),
  BREAKER_MIN_REQUESTS: field.positiveInteger(10),
  BREAKER_FAILURE_PERCENT: z.coerce.number().gt(0).max(100).default(70),
  BREAKER_OPEN_SECONDS: field.positiveSeconds(30),
  WEBHOOK_DENY_CIDRS: field.commaList().pipe(z.array(cidr)).default(['169.254.0.0/16']),
};

export type WebhookConfig = z.infer<z.ZodObject<typeof webhookConfigFields>>;

/** The dispatcher as its own process: its store, Kafka, and the gateway's identity secret. */
const processSchema = z.object({
  ...serviceProcessFields(3004),
  ...webhookConfigFields,
  INTERNAL_AUTH_SECRET: z.string().min(16, 'must be at least 16 characters'),
});

export type WebhookProcessConfig = z.infer<typeof processSchema>;

export function loadWebhookProcessConfig(env: Record<string, string | undefined> = process.env): WebhookProcessConfig {
  return readConfig(processSchema, env);
}

export interface WebhookSettings {
  intervalSeconds: number;
  retryDelaysSeconds: number[];
  timeoutMs: number;
  breaker: BreakerSettings;
  denyCidrs: string[];
}

export function webhookSettingsFrom(config: WebhookConfig): WebhookSettings {
  return {
    intervalSeconds: config.DELIVERY_INTERVAL_SECONDS,
    retryDelaysSeconds: config.DELIVERY_RETRY_DELAYS_SECONDS,
    timeoutMs: config.DELIVERY_TIMEOUT_MS,
    breaker: {
      minRequests: config.BREAKER_MIN_REQUESTS,
      failurePercent: config.BREAKER_FAILURE_PERCENT,
      openSeconds: config.BREAKER_OPEN_SECONDS,
    },
    denyCidrs: config.WEBHOOK_DENY_CIDRS,
  };
}

function isCidr(value: string): boolean {
  const [address, bits] = value.split('/');
  if (!address || bits === undefined || !/^\d{1,3}$/.test(bits)) return false;
  try {
    new BlockList().addSubnet(address, Number(bits), isIPv4(address) ? 'ipv4' : 'ipv6');
    return true;
  } catch {
    return false;
  }
}
