import { z } from 'zod';
import { defineRoutes } from './api-route.js';
import { roomResource } from './catalog-resources.js';

/** The longest window a free-room query may span. */
export const FREE_ROOMS_MAX_DAYS = 14;
const MS_PER_DAY = 86_400_000;
/** Capacities are stored as 32-bit integers; a larger minimum would only ever match nothing. */
const MAX_CAPACITY = 2_147_483_647;

const instant = (role: string) =>
  z.iso
    .datetime({
      offset: true,
      error: (issue) => (issue.input === undefined ? 'is required' : 'must be an ISO 8601 instant, e.g. 2026-03-26T12:00:00Z'),
    })
    .transform((value) => new Date(value))
    .describe(`ISO 8601 instant with Z or an offset: ${role}`);

/** The query of GET /rooms/free: parsed at runtime by catalog-api and documented from the same schema. */
export const freeRoomsQuery = z
  .object({
    from: instant('start of the window (inclusive)'),
    to: instant(`end of the window (exclusive); after from and at most ${FREE_ROOMS_MAX_DAYS} days later`),
    building: z.string().optional().describe('Exact building'),
    minCapacity: z.coerce.number().int().min(0).max(MAX_CAPACITY).optional().describe('Only rooms with at least this many seats'),
  })
  .superRefine((query, context) => {
    // Runs even when a bound failed to parse; that bound has its own issue already.
    if (!(query.from instanceof Date) || !(query.to instanceof Date)) return;
    const span = query.to.getTime() - query.from.getTime();
    if (span <= 0) context.addIssue({ code: 'custom', path: ['to'], message: 'must be after from' });
    else if (span > FREE_ROOMS_MAX_DAYS * MS_PER_DAY) {
      context.addIssue({ code: 'custom', path: ['to'], message: `must be at most ${FREE_ROOMS_MAX_DAYS} days after from` });
    }
  });

export type FreeRoomsQuery = z.infer<typeof freeRoomsQuery>;

export const freeRoomsResponse = z.object({
  data: z.object({
    period: z.object({ from: z.iso.datetime(), to: z.iso.datetime() }),
    rooms: z.array(roomResource).describe('Sorted by building, then name'),
  }),
});

export type FreeRoomsResponse = z.infer<typeof freeRoomsResponse>;

export const freeRoomsApi = defineRoutes('catalog-api', {
  freeRooms: {
    method: 'get',
    path: '/rooms/free',
    summary: 'Rooms free for a whole window',
    tag: 'Catalog',
    auth: false,
    query: freeRoomsQuery,
    responses: {
      200: {
        description:
          'The rooms with no occurrence overlapping [from, to): an occurrence overlaps when it starts before to and ends after from, ' +
          'so one ending exactly at from or starting exactly at to does not. An event with several rooms occupies each.',
        schema: freeRoomsResponse,
      },
      400: {
        description:
          `from or to missing or not an ISO instant, to not after from or more than ${FREE_ROOMS_MAX_DAYS} days later, ` +
          'minCapacity not an integer from 0 to 2147483647, or a control character in a parameter',
      },
    },
  },
});
