import { Router } from 'express';
import type { Logger } from '@timetable/observability';
import { createUpstreamProxy } from './upstream-proxy.js';

export interface UpstreamUrls {
  catalogApi: string;
  sync: string;
  changes: string;
  webhooks: string;
  developerAuth: string;
}

/** Distributed mode's routing table: path prefix (relative to /v1/timetable) -> owning service. */
export function createProxyRoutes(urls: UpstreamUrls, logger: Logger): Router {
  const proxy = (name: string, baseUrl: string) => createUpstreamProxy({ name, baseUrl, logger });
  const catalog = proxy('catalog-api', urls.catalogApi);
  const sync = proxy('sync', urls.sync);
  const router = Router();
  // A semester feed's upstream URL belongs to sync, the feeds themselves (semester and personal `/ical?...`)
  // to catalog-api: the more specific route first. `/rooms` covers `/rooms/free` as well.
  router.all('/ical/:semesterId/url', sync);
  router.use('/sync', sync);
  router.use(['/programs', '/semesters', '/courses', '/rooms', '/instructors', '/search', '/statistics', '/week', '/ical'], catalog);
  router.use('/changes', proxy('changes', urls.changes));
  router.use('/webhooks', proxy('webhook-dispatcher', urls.webhooks));
  router.use('/developers', proxy('developer-auth', urls.developerAuth));
  return router;
}
