import { z } from 'zod';
import { field, readConfig, serviceProcessFields } from '@timetable/config';
import { DEFAULT_MAX_BODY_BYTES } from './features/read/fetch-with-retry.js';

/** The sync variables; the standalone config spreads them into its own schema. */
export const syncConfigFields = {
  /** Unset in embedded mode means: sync from the built-in simulator. */
  UPSTREAM_BASE_URL: field.url().optional(),
  UPSTREAM_PU: z.coerce.number().int().positive().optional(),
  SYNC_INTERVAL_SECONDS: field.positiveSeconds(300),
  /** The largest upstream answer read, in bytes; a larger one fails its request. */
  UPSTREAM_MAX_BODY_BYTES: field.positiveInteger(DEFAULT_MAX_BODY_BYTES),
};

/** The distributed sync process: its own database, Kafka, and a real upstream. */
const schema = z.object({
  ...serviceProcessFields(3002),
  ...syncConfigFields,
  UPSTREAM_BASE_URL: field.url(),
  TIME_ZONE: field.timeZone(),
});

export type SyncConfig = z.infer<typeof schema>;

export function loadSyncConfig(env: Record<string, string | undefined> = process.env): SyncConfig {
  return readConfig(schema, env);
}
