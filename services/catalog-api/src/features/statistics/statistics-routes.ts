import { Router } from 'express';
import type { StatisticsStore } from './statistics-store.js';

// Counting is all there is to it, so the route talks to the store directly.
export function statisticsRoutes(store: StatisticsStore): Router {
  const router = Router();
  router.get('/statistics', async (_req, res) => {
    res.json({ data: await store.counts() });
  });
  return router;
}
