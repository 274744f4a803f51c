import type { Router } from 'express';
import { semestersApi } from '@timetable/contracts';
import { contractRouter } from '@timetable/http';
import type { ResponseCache } from '../../http/response-cache.js';
import type { SemestersService } from './semesters-service.js';

const COURSES_TTL_SECONDS = 3600;

export function semestersRoutes(service: SemestersService, responses: ResponseCache): Router {
  return contractRouter(semestersApi, {
    async list({ query, res }) {
      res.json({ data: await service.list(query().programId) });
    },
    async get({ params, res }) {
      res.json({ data: await service.get(params.id) });
    },
    async courses({ params: { id }, req, res }) {
      await responses.send(req, res, {
        key: `semester-courses:${id}`,
        contentType: 'application/json; charset=utf-8',
        cacheControl: 'no-cache',
        ttlSeconds: COURSES_TTL_SECONDS,
        render: async () => JSON.stringify({ data: await service.eventsOf(id) }),
      });
    },
  });
}
