import { Agent, ServerResponse } from 'node:http';
import type { Request, RequestHandler } from 'express';
import { createProxyMiddleware, debugProxyErrorsPlugin, proxyEventsPlugin } from 'http-proxy-middleware';
import { errorBody, ServiceUnavailableError } from '@timetable/http';
import type { Logger } from '@timetable/observability';
import { forwardRawBody } from './forward-raw-body.js';

export interface UpstreamProxySettings {
  name: string;
  baseUrl: string;
  logger: Logger;
  /** Longest wait for an upstream answer before the request fails with 503. */
  timeoutMs?: number;
}

/**
 * Forwards a request to a service unchanged in path (the services serve /v1/timetable themselves),
 * streaming the answer back. The gateway already read a JSON body (and checked its size and depth), so its
 * bytes are written as received; the request id travels along so one id follows the request. The raw API
 * key stays at the edge: services trust only the signed identity headers.
 */
export function createUpstreamProxy(settings: UpstreamProxySettings): RequestHandler {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const proxy = createProxyMiddleware({
    target: settings.baseUrl,
    changeOrigin: true,
    xfwd: true,
    agent,
    proxyTimeout: settings.timeoutMs ?? 30_000,
    ejectPlugins: true,
    plugins: [debugProxyErrorsPlugin, proxyEventsPlugin],
    pathRewrite: (_path, req) => (req as Request).originalUrl,
    on: {
      proxyReq: (proxyReq, req) => {
        // pino-http's `id` augmentation is not visible in this package's own build, hence the cast.
        proxyReq.setHeader('x-request-id', String((req as Request & { id?: unknown }).id));
        proxyReq.removeHeader('x-api-key');
        forwardRawBody(proxyReq, req);
      },
      error: (error, req, res) => {
        settings.logger.error({ err: error, upstream: settings.name, url: req.url }, 'upstream request failed');
        if (!(res instanceof ServerResponse)) return;
        if (res.headersSent) {
          res.destroy();
          return;
        }
        const body = errorBody(new ServiceUnavailableError(`The ${settings.name} service is unavailable`));
        res.writeHead(503, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
      },
    },
  });
  return (req, res, next) => proxy(req, res, next);
}
