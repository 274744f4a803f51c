import type { Router } from 'express';
import { coursesApi } from '@timetable/contracts';
import { contractRouter } from '@timetable/http';
import type { CoursesService } from './courses-service.js';

export function coursesRoutes(service: CoursesService): Router {
  return contractRouter(coursesApi, {
    async list({ query, res }) {
      res.json({ data: await service.list(query()) });
    },
    async get({ params, res }) {
      res.json({ data: await service.get(params.id) });
    },
  });
}
