import type { Router } from 'express';
import { instructorsApi } from '@timetable/contracts';
import { contractRouter } from '@timetable/http';
import type { InstructorsService } from './instructors-service.js';

export function instructorsRoutes(service: InstructorsService): Router {
  return contractRouter(instructorsApi, {
    async list({ query, res }) {
      res.json({ data: await service.list(query().search) });
    },
    async get({ params, res }) {
      res.json({ data: await service.get(params.id) });
    },
    async courses({ params, res }) {
      const { instructor, events } = await service.courses(params.id);
      // The spec's exception: the instructor beside the list, not double-wrapped.
      res.json({ instructor, data: events });
    },
  });
}
