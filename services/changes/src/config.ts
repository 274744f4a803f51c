import { z } from 'zod';
import { readConfig, serviceProcessFields } from '@timetable/config';

const schema = z.object(serviceProcessFields(3003));

export type ChangesConfig = z.infer<typeof schema>;

/** The change log's settings when it runs as its own process (distributed mode). */
export function loadChangesConfig(env: Record<string, string | undefined> = process.env): ChangesConfig {
  return readConfig(schema, env);
}
