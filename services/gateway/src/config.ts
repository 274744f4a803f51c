import { isIP } from 'node:net';
import { z } from 'zod';
import { field, readConfig } from '@timetable/config';
import { parseRateTiers } from '@timetable/cache';

const DEFAULT_RATE_LIMITS = '10/1s,60/1m,1000/1h';
const DEFAULT_REGISTER_LIMITS = '5/1m,20/1d';
const TRUST_PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** Express 'trust proxy' value: a boolean, a hop count, or a comma list of addresses, subnets and preset names. */
export type TrustProxy = boolean | number | string;

export function parseTrustProxy(value: string): TrustProxy | null {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value.split(',').map((entry) => entry.trim());
  const valid = entries.every((entry) => {
    if (TRUST_PROXY_NAMES.has(entry)) return true;
    const [address = '', prefix, ...rest] = entry.split('/');
    return isIP(address) !== 0 && rest.length === 0 && (prefix === undefined || /^\d{1,3}$/.test(prefix));
  });
  return valid ? entries.join(',') : null;
}

/** Tiers such as `10/1s,60/1m`, every one enforced. */
function rateTiers(defaults: string) {
  return z
    .string()
    .default(defaults)
    .transform((value, context) => {
      try {
        return parseRateTiers(value);
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    });
}

/**
 * The edge settings every gateway needs, embedded or distributed; the standalone config spreads them
 * into its own schema so both modes read the same variables the same way.
 */
export const gatewayEdgeFields = {
  RATE_LIMITS: rateTiers(DEFAULT_RATE_LIMITS),
  /** Developer sign-ups per client address. */
  REGISTER_LIMITS: rateTiers(DEFAULT_REGISTER_LIMITS),
  LEGACY_HOSTS: field
    .commaList()
    .transform((hosts) => hosts.map((host) => host.toLowerCase()))
    .default([]),
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((value, context) => {
      const parsed = parseTrustProxy(value);
      if (parsed === null) {
        context.addIssue({ code: 'custom', message: 'must be true, false, a hop count or a comma list of addresses/subnets' });
        return z.NEVER;
      }
      return parsed;
    }),
};

const schema = z.object({
  PORT: field.port(3000),
  PUBLIC_BASE_URL: field.url().optional(),
  LOG_LEVEL: field.logLevel(),
  /** The zone of the catalog's weeks, as the catalog reads it: `/week/current` is resolved in it. */
  TIME_ZONE: field.timeZone(),
  ...gatewayEdgeFields,
  REDIS_URL: field.url().optional(),
  /** Namespaces the rate-limit keys when several stacks share one Redis. */
  REDIS_KEY_PREFIX: z.string().default(''),
  KAFKA_BROKERS: field.commaList().optional(),
  SCHEMA_REGISTRY_URL: field.url().optional(),
  /** Put in front of topic names, so several stacks share one Kafka cluster. */
  KAFKA_TOPIC_PREFIX: z.string().default(''),
  INTERNAL_AUTH_SECRET: z.string().min(16, 'must be at least 16 characters'),
  CATALOG_API_URL: field.url(),
  SYNC_URL: field.url(),
  CHANGES_URL: field.url(),
  WEBHOOKS_URL: field.url(),
  DEVELOPER_AUTH_URL: field.url(),
});

export type GatewayConfig = z.infer<typeof schema> & { publicBaseUrl: string };

/** Configuration of the distributed gateway process (one process per service). */
export function loadGatewayConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  const config = readConfig(schema, env);
  return { ...config, publicBaseUrl: (config.PUBLIC_BASE_URL ?? `http://localhost:${config.PORT}`).replace(/\/+$/, '') };
}
