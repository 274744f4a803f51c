import type { Router } from 'express';
import { statisticsApi } from '@timetable/contracts';
import { contractRouter } from '@timetable/http';
import type { StatisticsStore } from './statistics-store.js';

// Counting is all there is to it, so the route talks to the store directly.
export function statisticsRoutes(store: StatisticsStore): Router {
  return contractRouter(statisticsApi, {
    async statistics({ res }) {
      res.json({ data: await store.counts() });
    },
  });
}
