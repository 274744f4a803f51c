import { Router, type RequestHandler } from 'express';
import { bySpecificity, expressPath, type ApiRoute, type ServiceName } from '@timetable/contracts';
import type { Logger } from '@timetable/observability';
import { createUpstreamProxy } from './upstream-proxy.js';

export interface UpstreamUrls {
  catalogApi: string;
  sync: string;
  changes: string;
  webhooks: string;
  developerAuth: string;
}

const URL_OF: Record<ServiceName, keyof UpstreamUrls> = {
  'catalog-api': 'catalogApi',
  sync: 'sync',
  changes: 'changes',
  'webhook-dispatcher': 'webhooks',
  'developer-auth': 'developerAuth',
};

/**
 * Distributed mode's routing table, derived from the gateway's route list (the one its key, usage and read
 * limit rules and its OpenAPI document come from): each documented path goes to the
 * service that owns it, whatever the method (the service answers a method it does not serve). A path no
 * route documents never leaves the gateway: its 404 comes from here.
 */
export function createProxyRoutes(urls: UpstreamUrls, logger: Logger, routes: readonly ApiRoute[]): Router {
  const proxies = new Map<ServiceName, RequestHandler>();
  const proxyOf = (service: ServiceName) => {
    let proxy = proxies.get(service);
    if (!proxy) {
      proxy = createUpstreamProxy({ name: service, baseUrl: urls[URL_OF[service]], logger });
      proxies.set(service, proxy);
    }
    return proxy;
  };
  const router = Router();
  // Literal segments first, so `/rooms/free` never reads as a room id even if two services shared a prefix.
  const paths = [...new Map(routes.map((route) => [route.path, route.service])).entries()].sort(([a], [b]) => bySpecificity(a, b));
  for (const [path, service] of paths) router.all(expressPath(path), proxyOf(service));
  return router;
}
