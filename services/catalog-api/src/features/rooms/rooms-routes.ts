import type { Router } from 'express';
import { roomsApi } from '@timetable/contracts';
import { contractRouter } from '@timetable/http';
import type { RoomsService } from './rooms-service.js';

export function roomsRoutes(service: RoomsService): Router {
  return contractRouter(roomsApi, {
    async list({ query, res }) {
      res.json({ data: await service.list(query()) });
    },
    async get({ params, res }) {
      res.json({ data: await service.get(params.id) });
    },
    async schedule({ params, query, res }) {
      res.json({ data: await service.schedule(params.id, query()) });
    },
  });
}
