import type { Router } from 'express';
import { programsApi } from '@timetable/contracts';
import { contractRouter } from '@timetable/http';
import type { ProgramsService } from './programs-service.js';

export function programsRoutes(service: ProgramsService): Router {
  return contractRouter(programsApi, {
    async list({ query, res }) {
      const { search, degreeType, archived } = query();
      // Only 'true' selects the archived (inactive) programs; anything else is the default view.
      res.json({ data: await service.list({ search, degreeType, active: archived !== 'true' }) });
    },
    async get({ params, res }) {
      res.json({ data: await service.get(params.id) });
    },
    async semesters({ params, res }) {
      res.json({ data: await service.semestersOf(params.id) });
    },
    async courses({ params, res }) {
      res.json({ data: await service.eventsOf(params.id) });
    },
  });
}
