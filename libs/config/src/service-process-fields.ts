import { z } from 'zod';
import { commaList, logLevel, port, positiveInteger, url } from './config-fields.js';

/**
 * The variables every service process of the distributed mode reads (README, "Configuration"), spread into
 * each service's own config schema. KAFKA_TOPIC_PREFIX lets several stacks share one cluster;
 * CONSUMER_RETRY_BUDGET_SECONDS is how long a consumer retries a batch that fails because something it needs
 * is down before it gives up and the process exits non-zero (to be restarted).
 */
export function serviceProcessFields(defaultPort: number) {
  return {
    PORT: port(defaultPort),
    LOG_LEVEL: logLevel(),
    DATABASE_URL: url(),
    KAFKA_BROKERS: commaList().pipe(z.array(z.string()).min(1, 'must name at least one broker')),
    SCHEMA_REGISTRY_URL: url().optional(),
    KAFKA_TOPIC_PREFIX: z.string().default(''),
    CONSUMER_RETRY_BUDGET_SECONDS: positiveInteger(300),
  };
}

/** What `serviceProcessFields` parse to: the part of every distributed service's config the service kit reads. */
export type ServiceProcessConfig = z.infer<z.ZodObject<ReturnType<typeof serviceProcessFields>>>;
