import type { Router } from 'express';
import type { ReadinessCheck } from './operational-routes.js';

/**
 * What a service hands to whoever runs it: in embedded mode the gateway mounts `routes` in-process, in
 * distributed mode and in tests the service kit serves them on a port of their own. `start` begins its
 * consumers and jobs, `stop` drains them (and must be safe before `start`: a composition whose start failed
 * stops every module it built); HTTP serving is the runner's business.
 */
export interface ServiceModule {
  name: string;
  /** Public routes, relative to `/v1/timetable`. */
  routes: Router;
  readiness: ReadinessCheck[];
  /** Service-to-service routes (`/internal/...`), served only on the service's own port in distributed mode. */
  internalRoutes?: Router;
  start(): Promise<void>;
  stop(): Promise<void>;
}
