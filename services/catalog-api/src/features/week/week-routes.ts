import type { Request, Response, Router } from 'express';
import { weekApi } from '@timetable/contracts';
import { contractRouter } from '@timetable/http';
import type { ResponseCache } from '../../http/response-cache.js';
import { parseOccurrenceFilter, type ParsedOccurrenceFilter } from '../../http/occurrence-filter-query.js';
import type { WeekService } from './week-service.js';

const WEEK_TTL_SECONDS = 3600;

/** The week a request asks for, its filter, and whether its URL always names that week (not /week/current). */
interface WeekAsked {
  label: string;
  selection: ParsedOccurrenceFilter;
  sameForUrl: boolean;
}

export function weekRoutes(service: WeekService, responses: ResponseCache): Router {
  const send = async (req: Request, res: Response, { label, selection, sameForUrl }: WeekAsked) => {
    service.assertLabel(label);
    await responses.send(req, res, {
      key: `week:${label}?${selection.key}`,
      contentType: 'application/json; charset=utf-8',
      cacheControl: 'no-cache',
      ttlSeconds: WEEK_TTL_SECONDS,
      sameForUrl,
      render: async () => JSON.stringify(await service.week(label, selection.filter)),
    });
  };
  return contractRouter(weekApi, {
    // /week/current is cached under the week it resolves to, so it shares entries with /week/:week; its URL
    // names a different week each Monday, so the gateway must not answer it by URL.
    current: ({ req, res, query }) => send(req, res, { label: service.currentLabel(), selection: parseOccurrenceFilter(query()), sameForUrl: false }),
    week: ({ req, res, params, query }) => send(req, res, { label: params.week, selection: parseOccurrenceFilter(query()), sameForUrl: true }),
  });
}
