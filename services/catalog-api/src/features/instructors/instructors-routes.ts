import { Router } from 'express';
import { z } from 'zod';
import { parseInput } from '@timetable/http';
import { optionalText } from '../../http/query-values.js';
import type { InstructorsService } from './instructors-service.js';

const listQuery = z.object({ search: optionalText });

export function instructorsRoutes(service: InstructorsService): Router {
  const router = Router();
  router.get('/instructors', async (req, res) => {
    const query = parseInput(listQuery, req.query, 'Query');
    res.json({ data: await service.list(query.search) });
  });
  router.get('/instructors/:id', async (req, res) => {
    res.json({ data: await service.get(req.params.id) });
  });
  router.get('/instructors/:id/courses', async (req, res) => {
    const { instructor, events } = await service.courses(req.params.id);
    // The spec's exception: the instructor beside the list, not double-wrapped.
    res.json({ instructor, data: events });
  });
  return router;
}
