import type { ApiRoute } from './api-route.js';

/**
 * The one reading of a contract path (`/webhooks/{id}`), shared by the services' routers, the gateway's key
 * and usage rules and its proxy table. A concrete path matches the way Express matches it: case-insensitive,
 * a trailing slash tolerated, a parameter standing for one non-empty segment. The most specific route wins:
 * segment by segment, a literal before a parameter (`/week/current` before `/week/{week}`).
 */
export class RouteMatcher<R extends Pick<ApiRoute, 'method' | 'path'> = ApiRoute> {
  private readonly compiled: { route: R; pattern: RegExp }[];

  constructor(routes: readonly R[]) {
    this.compiled = [...routes].sort((a, b) => bySpecificity(a.path, b.path)).map((route) => ({ route, pattern: pathPattern(route.path) }));
  }

  /**
   * The most specific route whose path matches `path` (relative to /v1/timetable, without the query); with a
   * method (any case, HEAD read as GET), only a route of that method.
   */
  find(path: string, method?: string): R | undefined {
    const wanted = method === undefined ? undefined : readAs(method);
    return this.compiled.find(({ route, pattern }) => (wanted === undefined || route.method === wanted) && pattern.test(path))?.route;
  }
}

/** `/webhooks/{id}` -> `/webhooks/:id`, the form Express routes by and usage events name. */
export function expressPath(path: string): string {
  const express = segmentsOf(path)
    .map((segment) => (isParameter(segment) ? `/:${segment.slice(1, -1)}` : `/${segment}`))
    .join('');
  return express === '' ? '/' : express;
}

/** Orders contract paths so that, segment by segment, a literal comes before a parameter. */
export function bySpecificity(a: string, b: string): number {
  const left = segmentsOf(a);
  const right = segmentsOf(b);
  for (let index = 0; index < Math.min(left.length, right.length); index += 1) {
    const leftParam = isParameter(left[index]!);
    const rightParam = isParameter(right[index]!);
    if (leftParam !== rightParam) return leftParam ? 1 : -1;
  }
  return 0;
}

/** The first segment of a path, lower-cased: `/Webhooks/42` -> `webhooks`; '' for a path without one. */
export function firstSegment(path: string): string {
  return path.startsWith('/') ? (path.split('/')[1] ?? '').toLowerCase() : '';
}

function pathPattern(path: string): RegExp {
  const source = segmentsOf(path)
    .map((segment) => (isParameter(segment) ? '/[^/]+' : `/${escapeRegExp(segment)}`))
    .join('');
  return new RegExp(`^${source}/?$`, 'i');
}

function readAs(method: string): string {
  const lower = method.toLowerCase();
  return lower === 'head' ? 'get' : lower;
}

function segmentsOf(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '');
}

function isParameter(segment: string): boolean {
  return segment.startsWith('{') && segment.endsWith('}');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
