import type { Request, RequestHandler } from 'express';
import { counter, histogram } from '@timetable/observability';

/** The labels of both request series. */
export interface RequestLabels {
  service: string;
  method: string;
  route: string;
  status: string;
}

const LABELS = ['service', 'method', 'route', 'status'] as const;

const requestDuration = histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request latency by service, method, route pattern and status',
  labelNames: LABELS,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
});

const requestsTotal = counter({
  name: 'http_requests_total',
  help: 'HTTP requests by service, method, route pattern and status',
  labelNames: LABELS,
});

/**
 * One answered request, for handlers that answer outside Express (the gateway's cached reads) as well as the
 * middleware below: the same series, so dashboards see one set of numbers whichever path answered.
 */
export function observeRequest(labels: RequestLabels, seconds: number): void {
  requestDuration.observe(labels, seconds);
  requestsTotal.inc(labels);
}

/** The Express route pattern that matched, under its mount point (`/v1/timetable/week/:week`); undefined when none did. */
export function routePatternOf(req: Request): string | undefined {
  const pattern: unknown = req.route?.path;
  return typeof pattern === 'string' ? `${req.baseUrl}${pattern}` : undefined;
}

/** Labels by route pattern, not raw path, so ids do not explode the label set. */
export function httpMetrics(service: string): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    res.on('finish', () => {
      const route = routePatternOf(req) ?? 'unmatched';
      observeRequest({ service, method: req.method, route, status: String(res.statusCode) }, (performance.now() - started) / 1000);
    });
    next();
  };
}
