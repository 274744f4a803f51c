import { Router } from 'express';
import { z } from 'zod';
import { parseInput } from '@timetable/http';
import { optionalText } from '../../http/query-values.js';
import { SEARCH_KINDS, type SearchService } from './search-service.js';

const searchQuery = z.object({
  q: optionalText,
  type: z.preprocess((value) => (Array.isArray(value) ? value[0] : value), z.enum(SEARCH_KINDS).optional()),
});

export function searchRoutes(service: SearchService): Router {
  const router = Router();
  router.get('/search', async (req, res) => {
    const query = parseInput(searchQuery, req.query, 'Query');
    res.json({ data: await service.search(query.q ?? '', query.type) });
  });
  return router;
}
