import { Router } from 'express';
import { z } from 'zod';
import { parseInput } from '@timetable/http';
import { optionalText } from '../../http/query-values.js';
import type { ProgramsService } from './programs-service.js';

const listQuery = z.object({ search: optionalText, degreeType: optionalText, archived: optionalText });

export function programsRoutes(service: ProgramsService): Router {
  const router = Router();
  router.get('/programs', async (req, res) => {
    const query = parseInput(listQuery, req.query, 'Query');
    // Only 'true' selects the archived (inactive) programs; anything else is the default view.
    const active = query.archived !== 'true';
    res.json({ data: await service.list({ search: query.search, degreeType: query.degreeType, active }) });
  });
  router.get('/programs/:id', async (req, res) => {
    res.json({ data: await service.get(req.params.id) });
  });
  router.get('/programs/:id/semesters', async (req, res) => {
    res.json({ data: await service.semestersOf(req.params.id) });
  });
  router.get('/programs/:id/courses', async (req, res) => {
    res.json({ data: await service.eventsOf(req.params.id) });
  });
  return router;
}
