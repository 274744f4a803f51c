import type { TopicDefinition } from '@timetable/contracts';

/** Null passes only on compacted topics, where it is a tombstone. */
export function validateEventValue(topic: TopicDefinition, value: unknown): { ok: true; value: unknown } | { ok: false; reason: string } {
  if (value === null) {
    return topic.compacted ? { ok: true, value: null } : { ok: false, reason: 'null value on a non-compacted topic' };
  }
  const parsed = topic.schema.safeParse(value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, reason: parsed.error.message };
}
