import { Router } from 'express';
import { z } from 'zod';
import { parseInput } from '@timetable/http';
import type { ResponseCache } from '../../http/cached-response.js';
import { optionalText } from '../../http/query-values.js';
import type { SemestersService } from './semesters-service.js';

const listQuery = z.object({ programId: optionalText });
const COURSES_TTL_SECONDS = 3600;

export function semestersRoutes(service: SemestersService, responses: ResponseCache): Router {
  const router = Router();
  router.get('/semesters', async (req, res) => {
    const query = parseInput(listQuery, req.query, 'Query');
    res.json({ data: await service.list(query.programId) });
  });
  router.get('/semesters/:id', async (req, res) => {
    res.json({ data: await service.get(req.params.id) });
  });
  router.get('/semesters/:id/courses', async (req, res) => {
    const { id } = req.params;
    await responses.send(req, res, {
      key: `semester-courses:${id}`,
      contentType: 'application/json; charset=utf-8',
      cacheControl: 'no-cache',
      ttlSeconds: COURSES_TTL_SECONDS,
      render: async () => JSON.stringify({ data: await service.eventsOf(id) }),
    });
  });
  return router;
}
