import express, { type Express, type Router } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from '@timetable/observability';
import { errorEnvelope, routeNotFound } from './error-envelope.js';
import { httpMetrics } from './http-metrics.js';
import { jsonBody } from './json-body.js';
import { operationalRoutes, type ReadinessCheck } from './operational-routes.js';
import { requestId } from './request-id.js';

export interface ServiceAppOptions {
  /** Service name, used in logs and metric labels. */
  name: string;
  logger: Logger;
  /** The service's routes, mounted under `/v1/timetable`. */
  routes?: Router;
  readiness?: ReadinessCheck[];
  /** Largest accepted JSON body. */
  bodyLimit?: string;
  /** Keep each JSON body's bytes as received (`rawBodyOf`), for the gateway's proxy. */
  keepRawBody?: boolean;
  /** Hook for the gateway, which mounts things before the 404 handler. */
  configure?: (app: Express) => void;
}

export const API_PREFIX = '/v1/timetable';

/**
 * The one way every service builds its Express app: request ids, structured request logs, metrics,
 * /health, /ready, /metrics, JSON bodies, and the error envelope for everything that is not 2xx.
 */
export function createServiceApp(options: ServiceAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(
    pinoHttp({
      logger: options.logger,
      genReqId: requestId,
      // A 503 from /ready is the expected answer while dependencies start, not a failure worth an error line.
      customLogLevel: (req, res, err) =>
        err || (res.statusCode >= 500 && req.url !== '/ready') ? 'error' : 'info',
      serializers: {
        req: (req: { id: unknown; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
    }),
  );
  app.use(httpMetrics(options.name));
  app.use(operationalRoutes(options.readiness ?? []));
  app.use(jsonBody({ limit: options.bodyLimit ?? '64kb', keepRaw: options.keepRawBody }));
  options.configure?.(app);
  if (options.routes) app.use(API_PREFIX, options.routes);
  app.use(routeNotFound);
  app.use(errorEnvelope);
  return app;
}
