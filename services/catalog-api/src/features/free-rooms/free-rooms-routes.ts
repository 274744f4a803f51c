import type { Router } from 'express';
import { freeRoomsApi, type FreeRoomsResponse } from '@timetable/contracts';
import { contractRouter } from '@timetable/http';
import type { ResponseCache } from '../../http/response-cache.js';
import type { FreeRoomsStore } from './free-rooms-store.js';

const FREE_ROOMS_TTL_SECONDS = 3600;

/**
 * GET /rooms/free. Mounted before the rooms routes, so `free` is never taken for a room id. The answer
 * depends on the catalog only (not on the clock), so the versioned cache serves it until the next change.
 */
export function freeRoomsRoutes(store: FreeRoomsStore, responses: ResponseCache): Router {
  return contractRouter(freeRoomsApi, {
    async freeRooms({ req, res, query: parse }) {
      const query = parse();
      const from = query.from.toISOString();
      const to = query.to.toISOString();
      await responses.send(req, res, {
        key: `rooms-free:${JSON.stringify([from, to, query.building ?? null, query.minCapacity ?? null])}`,
        contentType: 'application/json; charset=utf-8',
        cacheControl: 'no-cache',
        ttlSeconds: FREE_ROOMS_TTL_SECONDS,
        render: async () => {
          const body: FreeRoomsResponse = { data: { period: { from, to }, rooms: await store.free(query) } };
          return JSON.stringify(body);
        },
      });
    },
  });
}
