import type { Request, Response, Router } from 'express';
import { expressPath, weekApi } from '@timetable/contracts';
import { contractRouter } from '@timetable/http';
import type { ResponseCache, UrlEntry } from '../../http/response-cache.js';
import { parseOccurrenceFilter, type ParsedOccurrenceFilter } from '../../http/occurrence-filter-query.js';
import type { WeekService } from './week-service.js';

const WEEK_TTL_SECONDS = 3600;

interface WeekAnswer {
  req: Request;
  res: Response;
  label: string;
  selection: ParsedOccurrenceFilter;
  /** Where the gateway may find it by URL; the request's own URL unless given. */
  urlEntry?: UrlEntry;
}

export function weekRoutes(service: WeekService, responses: ResponseCache): Router {
  const send = async ({ req, res, label, selection, urlEntry }: WeekAnswer) => {
    service.assertLabel(label);
    await responses.send(req, res, {
      key: `week:${label}?${selection.key}`,
      contentType: 'application/json; charset=utf-8',
      cacheControl: 'no-cache',
      ttlSeconds: WEEK_TTL_SECONDS,
      ...(urlEntry ? { urlEntry } : {}),
      render: async () => JSON.stringify(await service.week(label, selection.filter)),
    });
  };
  return contractRouter(weekApi, {
    // /week/current is cached under the week it resolves to, so it shares entries with /week/:week, and its
    // answer is stored as the answer to that week's URL with the same query: the gateway resolves the week of
    // a /week/current request itself and looks that URL up.
    current: ({ req, res, query }) => {
      const label = service.currentLabel();
      const urlEntry = { url: `${req.baseUrl}${weekPath(label)}${queryOf(req.originalUrl)}`, route: `${req.baseUrl}${expressPath(weekApi.week.path)}` };
      return send({ req, res, label, selection: parseOccurrenceFilter(query()), urlEntry });
    },
    week: ({ req, res, params, query }) => send({ req, res, label: params.week, selection: parseOccurrenceFilter(query()) }),
  });
}

/** The path of an explicit week under the API prefix, as the contract spells it. */
function weekPath(label: string): string {
  return weekApi.week.path.replace('{week}', label);
}

/** The query string with its '?', or '' for a URL without one. */
function queryOf(url: string): string {
  const start = url.indexOf('?');
  return start === -1 ? '' : url.slice(start);
}
