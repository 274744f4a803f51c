import { Router, type Request, type Response } from 'express';
import type { ResponseCache } from '../../http/cached-response.js';
import { parseOccurrenceFilter } from '../../http/occurrence-filter-query.js';
import type { WeekService } from './week-service.js';

const WEEK_TTL_SECONDS = 3600;

export function weekRoutes(service: WeekService, responses: ResponseCache): Router {
  const router = Router();
  const send = async (req: Request, res: Response, label: string) => {
    service.assertLabel(label);
    const { filter, key } = parseOccurrenceFilter(req.query);
    await responses.send(req, res, {
      key: `week:${label}?${key}`,
      contentType: 'application/json; charset=utf-8',
      cacheControl: 'no-cache',
      ttlSeconds: WEEK_TTL_SECONDS,
      render: async () => JSON.stringify(await service.week(label, filter)),
    });
  };
  // /week/current is cached under the week it resolves to, so it shares entries with /week/:week.
  router.get('/week/current', (req, res) => send(req, res, service.currentLabel()));
  router.get('/week/:week', (req, res) => send(req, res, req.params.week));
  return router;
}
