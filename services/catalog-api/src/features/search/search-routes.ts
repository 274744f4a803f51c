import type { Router } from 'express';
import { searchApi } from '@timetable/contracts';
import { contractRouter } from '@timetable/http';
import type { SearchService } from './search-service.js';

export function searchRoutes(service: SearchService): Router {
  return contractRouter(searchApi, {
    async search({ query, res }) {
      const { q, type } = query();
      res.json({ data: await service.search(q ?? '', type) });
    },
  });
}
