import { Router } from 'express';
import { z } from 'zod';
import { parseInput } from '@timetable/http';
import { optionalText } from '../../http/query-values.js';
import type { RoomsService } from './rooms-service.js';

const listQuery = z.object({ search: optionalText, building: optionalText });
const instant = z.preprocess(
  (value) => (Array.isArray(value) ? value[0] : value),
  z.iso
    .datetime({ offset: true, message: 'must be an ISO 8601 instant' })
    .transform((value) => new Date(value))
    .optional(),
);
const scheduleQuery = z.object({ from: instant, to: instant });

export function roomsRoutes(service: RoomsService): Router {
  const router = Router();
  router.get('/rooms', async (req, res) => {
    const query = parseInput(listQuery, req.query, 'Query');
    res.json({ data: await service.list(query) });
  });
  router.get('/rooms/:id', async (req, res) => {
    res.json({ data: await service.get(req.params.id) });
  });
  router.get('/rooms/:id/schedule', async (req, res) => {
    const window = parseInput(scheduleQuery, req.query, 'Query');
    res.json({ data: await service.schedule(req.params.id, window) });
  });
  return router;
}
