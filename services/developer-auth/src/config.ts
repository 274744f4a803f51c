import { z } from 'zod';
import { field, readConfig, serviceProcessFields } from '@timetable/config';

/** developer-auth as its own process: its store, Kafka, the identity secret, and where webhooks are counted. */
const schema = z.object({
  ...serviceProcessFields(3005),
  INTERNAL_AUTH_SECRET: z.string().min(16, 'must be at least 16 characters'),
  /** The webhook-dispatcher's base URL, for `_count.webhooks` of /developers/me. */
  WEBHOOKS_URL: field.url(),
});

export type DeveloperAuthConfig = z.infer<typeof schema>;

export function loadDeveloperAuthConfig(env: Record<string, string | undefined> = process.env): DeveloperAuthConfig {
  return readConfig(schema, env);
}
