import type { z } from 'zod';

/** The services that answer public routes; the gateway routes each path to its owner. */
export type ServiceName = 'catalog-api' | 'sync' | 'changes' | 'webhook-dispatcher' | 'developer-auth';

export interface ResponseSpec {
  description: string;
  /** The body's schema; absent for an empty body (204, 304) and for the error envelope (every status >= 400). */
  schema?: z.ZodType;
  contentType?: string;
  /** The answer carries a Retry-After header (seconds). */
  retryAfter?: boolean;
}

/** A public route as its owner declares it, before `defineRoutes` stamps the owner on it. */
export interface RouteSpec {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** OpenAPI form, relative to /v1/timetable, e.g. `/programs/{id}`. */
  path: string;
  summary: string;
  tag: string;
  /** True when the route needs the X-API-Key header. */
  auth: boolean;
  /** Path parameters; the service parses them with this schema before its handler runs. */
  params?: z.ZodObject;
  /** Query parameters; a repeated parameter counts once unless its schema accepts a list. */
  query?: z.ZodObject;
  /** The JSON body. */
  body?: z.ZodType;
  responses: Record<number, ResponseSpec>;
}

/**
 * A public route as data, the single source of its facts: the owning service registers its handler from
 * it (path, parsing, auth), the gateway derives its key rule, proxy table, usage patterns and the OpenAPI
 * document from it, and a test checks every documented response body against these schemas.
 */
export interface ApiRoute extends RouteSpec {
  service: ServiceName;
}

/** A named group of one service's routes; the names are the keys of that service's handler objects. */
export type RouteGroup = Record<string, ApiRoute>;

/** Declares a group of routes owned by `service`, keeping each entry's own schema types for its handler. */
export function defineRoutes<const R extends Record<string, RouteSpec>>(
  service: ServiceName,
  routes: R,
): { [K in keyof R]: R[K] & { service: ServiceName } } {
  return Object.fromEntries(Object.entries(routes).map(([name, route]) => [name, { ...route, service }])) as {
    [K in keyof R]: R[K] & { service: ServiceName };
  };
}
