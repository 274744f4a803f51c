import { z } from 'zod';
import { field, readConfig } from '@timetable/config';

/** The sync variables of DESIGN.md section 7; the standalone config spreads them into its own schema. */
export const syncConfigFields = {
  /** Unset in embedded mode means: sync from the built-in simulator. */
  UPSTREAM_BASE_URL: field.url().optional(),
  UPSTREAM_PU: z.coerce.number().int().positive().optional(),
  SYNC_INTERVAL_SECONDS: field.positiveSeconds(300),
};

/** The distributed sync process: its own database, Kafka, and a real upstream. */
const schema = z.object({
  ...syncConfigFields,
  UPSTREAM_BASE_URL: field.url(),
  PORT: field.port(3002),
  DATABASE_URL: field.url(),
  KAFKA_BROKERS: field.commaList(),
  SCHEMA_REGISTRY_URL: field.url().optional(),
  TIME_ZONE: field.timeZone(),
  LOG_LEVEL: field.logLevel(),
});

export type SyncConfig = z.infer<typeof schema>;

export function loadSyncConfig(env: Record<string, string | undefined> = process.env): SyncConfig {
  return readConfig(schema, env);
}
