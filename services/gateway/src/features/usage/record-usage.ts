import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { topics, type UsageEvent } from '@timetable/contracts';
import type { EventBus } from '@timetable/events';
import { API_PREFIX } from '@timetable/http';
import { counter, type Logger } from '@timetable/observability';
import type { EndpointPatterns } from './endpoint-patterns.js';

const usagePublishFailures = counter({
  name: 'gateway_usage_publish_failures_total',
  help: 'Usage events that could not be published',
});

export interface UsageDeps {
  bus: EventBus;
  patterns: EndpointPatterns;
  logger: Logger;
}

/**
 * After an authenticated developer's request has been answered, publishes one usage event for
 * developer-auth. Fire and forget: a slow or failing bus never delays or fails the response.
 */
export function recordUsage(deps: UsageDeps): RequestHandler {
  return (req, res, next) => {
    const developerId: unknown = res.locals.developerId;
    if (typeof developerId !== 'string') return next();
    const path = req.path;
    res.once('finish', () => {
      const event: UsageEvent = {
        id: randomUUID(),
        developerId,
        endpoint: `${req.method} ${API_PREFIX}${routePattern(deps.patterns, req, path)}`,
        statusCode: res.statusCode,
        occurredAt: new Date().toISOString(),
      };
      deps.bus.publish([{ topic: topics.usage.name, key: developerId, value: event }]).catch((error: unknown) => {
        usagePublishFailures.inc();
        deps.logger.error({ err: error, endpoint: event.endpoint }, 'usage event not published');
      });
    });
    next();
  };
}

/** Documented pattern first; else the Express route that answered (embedded mode); else the bare path. */
function routePattern(patterns: EndpointPatterns, req: Request, path: string): string {
  const documented = patterns.match(req.method, path);
  if (documented) return documented;
  const routePath: unknown = req.route?.path;
  if (typeof routePath === 'string' && req.baseUrl.startsWith(API_PREFIX)) {
    return `${req.baseUrl.slice(API_PREFIX.length)}${routePath}`;
  }
  return path;
}
