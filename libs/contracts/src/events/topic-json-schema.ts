import { z } from 'zod';
import type { TopicDefinition } from './topics.js';

/**
 * The JSON Schema of a topic's value, generated from its zod schema: the schema registered in the registry
 * (subject `<topic>-value`) and the payload schema of the AsyncAPI document, so both stay one. Draft-07,
 * because the registry client validates with an ajv that does not know later drafts.
 */
export function topicJsonSchema(topic: TopicDefinition): Record<string, unknown> {
  return z.toJSONSchema(topic.schema, { target: 'draft-7' }) as Record<string, unknown>;
}
