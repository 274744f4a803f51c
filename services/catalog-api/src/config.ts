import { z } from 'zod';
import { field, readConfig, serviceProcessFields } from '@timetable/config';

const schema = z.object({
  ...serviceProcessFields(3001),
  /** Unset: a per-process memory cache (replicas then serve stale entries until their TTL). */
  REDIS_URL: field.url().optional(),
  /** Namespaces the cache keys when several stacks share one Redis. */
  REDIS_KEY_PREFIX: z.string().default(''),
  TIME_ZONE: field.timeZone(),
  PUBLIC_BASE_URL: field.url().default('http://localhost:3000'),
  ICAL_DOMAIN: z.string().min(1).optional(),
});

export type CatalogConfig = z.infer<typeof schema> & { icalDomain: string };

/** The catalog's settings when it runs as its own process (distributed mode). */
export function loadCatalogConfig(env: Record<string, string | undefined> = process.env): CatalogConfig {
  const config = readConfig(schema, env);
  return { ...config, icalDomain: config.ICAL_DOMAIN ?? icalDomainOf(config.PUBLIC_BASE_URL) };
}

/**
 * ICAL_DOMAIN defaults to the host name of PUBLIC_BASE_URL, without the port: UIDs must stay the same
 * when the service moves to another port.
 */
export function icalDomainOf(publicBaseUrl: string): string {
  return new URL(publicBaseUrl).hostname;
}
