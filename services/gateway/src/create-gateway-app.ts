import { Router, type Express } from 'express';
import { createServiceApp, type ReadinessCheck } from '@timetable/http';
import type { Logger } from '@timetable/observability';

export interface GatewayDeps {
  logger: Logger;
  /** Handlers for everything under /v1/timetable: in-process service routers or proxies to the services. */
  upstreams: Router[];
  readiness: ReadinessCheck[];
}

/** The only public entry: everything the outside world reaches goes through here. */
export function createGatewayApp(deps: GatewayDeps): Express {
  const routes = Router();
  for (const upstream of deps.upstreams) routes.use(upstream);
  return createServiceApp({ name: 'gateway', logger: deps.logger, routes, readiness: deps.readiness });
}
