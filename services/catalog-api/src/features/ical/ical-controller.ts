import { Router } from 'express';
import type { ResponseCache } from '../../http/cached-response.js';
import type { IcalService } from './ical-service.js';

const FEED_MAX_AGE_SECONDS = 600;

export function icalController(service: IcalService, responses: ResponseCache): Router {
  const router = Router();
  router.get('/ical/:semesterId', async (req, res) => {
    const { semesterId } = req.params;
    await responses.send(req, res, {
      key: `ical:${semesterId}`,
      contentType: 'text/calendar; charset=utf-8',
      cacheControl: `public, max-age=${FEED_MAX_AGE_SECONDS}`,
      ttlSeconds: FEED_MAX_AGE_SECONDS,
      render: () => service.feed(semesterId),
    });
  });
  return router;
}
