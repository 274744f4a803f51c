import { z } from 'zod';
import { topics, type TopicDefinition } from './topics.js';

/**
 * CloudEvents Kafka protocol binding, binary mode: the event's attributes travel as `ce_*` headers and the
 * value is the event data. Sync sets them on every change record and on the entity state it brings.
 */
export const cloudEventHeaders = z.object({
  ce_specversion: z.literal('1.0'),
  ce_id: z.uuid().describe('The change id: the change record\'s id, also on the entity state it produced; a consumer dedupes by it'),
  ce_type: z
    .string()
    .regex(/^timetable\.[A-Za-z]+\.(created|updated|deleted)$/)
    .describe('timetable.<entityType>.<action>, e.g. timetable.course.updated'),
  ce_source: z.literal('/timetable/sync'),
  ce_time: z.iso.datetime({ offset: false }).describe('When sync detected the change (the change record\'s createdAt)'),
  'content-type': z.literal('application/json'),
});

export type CloudEventHeaders = z.infer<typeof cloudEventHeaders>;

/** What a consumer needs beyond the value schema: purpose, key and headers of a topic's messages. */
export interface TopicDocumentation {
  topic: TopicDefinition;
  /** Identifier of the topic in documents (AsyncAPI channel and message names). */
  id: string;
  title: string;
  description: string;
  key: { description: string; pattern: string; example: string };
  /** Headers every message carries; none when undefined. */
  headers?: z.ZodObject;
}

const ENTITY_KEY = {
  description: '<entityType>:<entityId>: every message of one entity has the same key, so it lands on one partition and keeps its order',
  pattern: '^[A-Za-z]+:[0-9a-fA-F-]{36}$',
  example: 'course:6f1d2c3b-0a4e-5b6c-8d7e-9f0a1b2c3d4e',
};

export const topicDocumentation: TopicDocumentation[] = [
  {
    topic: topics.changes,
    id: 'changes',
    title: 'Timetable changes',
    description:
      'One record per difference sync detected between the upstream timetable and the mirror: the change log ' +
      'that /v1/timetable/changes serves and webhooks deliver. Delivery is at least once: dedupe by id.',
    key: ENTITY_KEY,
    headers: cloudEventHeaders,
  },
  {
    topic: topics.entities,
    id: 'entities',
    title: 'Current state of every entity',
    description:
      'Compacted: the latest state per entity (program, semester, academic period, course, room, instructor, ' +
      'event). Read it from the beginning to rebuild the whole catalog. A message with the same key and a null ' +
      'value (a tombstone) means the entity was deleted. Events are weekly series: recurrenceRule is an RRULE ' +
      'for dtstart in timeZone, exdates the starts that do not take place.',
    key: ENTITY_KEY,
    headers: cloudEventHeaders,
  },
  {
    topic: topics.usage,
    id: 'usage',
    title: 'Developer API usage',
    description: 'One event per answered developer or webhook request, recorded by the gateway for developer-auth.',
    key: {
      description: 'The developer id, so one developer\'s events keep their order',
      pattern: '^[0-9a-fA-F-]{36}$',
      example: '0b7e6a52-3c1d-4f7a-9d2e-5a6b7c8d9e0f',
    },
  },
];
