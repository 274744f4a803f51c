import { Router } from 'express';
import { z } from 'zod';
import { parseInput } from '@timetable/http';
import { optionalText } from '../../http/query-values.js';
import type { CoursesService } from './courses-service.js';

const listQuery = z.object({ search: optionalText, periodId: optionalText });

export function coursesRoutes(service: CoursesService): Router {
  const router = Router();
  router.get('/courses', async (req, res) => {
    const query = parseInput(listQuery, req.query, 'Query');
    res.json({ data: await service.list(query) });
  });
  router.get('/courses/:id', async (req, res) => {
    res.json({ data: await service.get(req.params.id) });
  });
  return router;
}
