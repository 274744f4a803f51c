import { z } from 'zod';
import { defineRoutes } from './api-route.js';
import { toleratingControlCharacters } from './malformed-values.js';

const TAG = 'Changes';
const instant = z.iso.datetime();
const entityPayload = z.record(z.string(), z.unknown()).nullable();

/** One entry of the change log, as GET /changes and GET /changes/{id} return it. */
export const changeRecord = z.object({
  id: z.uuid(),
  entityType: z.string(),
  entityId: z.string(),
  action: z.enum(['created', 'updated', 'deleted']),
  previousData: entityPayload.describe('Null for created'),
  newData: entityPayload.describe('Null for deleted'),
  changedFields: z.array(z.string()).describe('Empty for created and deleted'),
  programId: z.uuid().nullable(),
  semesterId: z.uuid().nullable(),
  courseId: z.uuid().nullable(),
  roomId: z.uuid().nullable(),
  instructorId: z.uuid().nullable(),
  createdAt: instant,
});

export type ChangeRecord = z.infer<typeof changeRecord>;

/** The query of GET /changes: parsed by the changes service and documented from the same schema. */
export const changeListQuery = z.object({
  since: toleratingControlCharacters(
    z.string().optional().describe('ISO 8601 instant; selects createdAt >= since. Unparseable (control characters included): 200 with an empty list and an error field'),
  ),
  after: z
    .uuid('after must be the id of a change')
    .optional()
    .describe(
      'Cursor: the id of the last change a poller saw. Lists only the changes appended to the log after it, oldest first in ' +
        'append order (whatever their createdAt), at most limit; the next page is after the last id returned. The other ' +
        'filters, since included, apply as well. An id the log does not hold, or a malformed one, is a 400',
    ),
  entityType: z.string().optional().describe('Case-insensitive contains'),
  action: z.string().optional().describe('created, updated or deleted (case-insensitive contains)'),
  programId: z.string().optional().describe('Exact; a malformed id matches nothing'),
  semesterId: z.string().optional().describe('Exact; a malformed id matches nothing'),
  courseId: z.string().optional().describe('Exact; a malformed id matches nothing'),
  limit: z
    .string()
    .regex(/^[+-]?\d+$/, 'limit must be an integer')
    .transform(Number)
    .pipe(z.number().int().min(1, 'limit must be at least 1'))
    .optional()
    .describe('Integer >= 1, default 100; values above 500 are capped at 500'),
});

export type ChangeListQuery = z.infer<typeof changeListQuery>;

export const changesApi = defineRoutes('changes', {
  listChanges: {
    method: 'get',
    path: '/changes',
    summary: 'The change log, newest first; oldest first after a cursor',
    tag: TAG,
    auth: false,
    query: changeListQuery,
    responses: {
      200: {
        description: 'Matching change records sorted by createdAt descending; with after, in append order',
        schema: z.object({ data: z.array(changeRecord), error: z.literal('Invalid since timestamp').optional() }),
      },
      400: { description: 'limit is not an integer or is below 1, or after is not the id of a change in the log' },
    },
  },
  getChange: {
    method: 'get',
    path: '/changes/{id}',
    summary: 'One change record',
    tag: TAG,
    auth: false,
    params: z.object({ id: z.string() }),
    responses: {
      200: { description: 'The change record', schema: z.object({ data: changeRecord }) },
      404: { description: 'Unknown or malformed id' },
    },
  },
});
