import type { ApiRoute } from '@timetable/contracts';

interface CompiledRoute {
  method: string;
  pattern: string;
  matcher: RegExp;
  literalSegments: number;
}

/**
 * Maps a concrete request path back to its documented route pattern (`/webhooks/{id}` -> `/webhooks/:id`),
 * so usage is counted per endpoint, not per id, in both modes (a proxy never sees Express route patterns).
 */
export class EndpointPatterns {
  private readonly routes: CompiledRoute[];

  constructor(apiRoutes: readonly ApiRoute[]) {
    this.routes = apiRoutes
      .map((route) => compile(route))
      // The most literal route wins, so `/developers/me` beats a `/developers/{id}`.
      .sort((a, b) => b.literalSegments - a.literalSegments);
  }

  /** The Express-style pattern relative to /v1/timetable, or null when no documented route matches. */
  match(method: string, path: string): string | null {
    const wanted = method === 'HEAD' ? 'GET' : method;
    return this.routes.find((route) => route.method === wanted && route.matcher.test(path))?.pattern ?? null;
  }
}

function compile(route: ApiRoute): CompiledRoute {
  const segments = route.path.split('/').filter((segment) => segment !== '');
  const source = segments
    .map((segment) => (/^\{.+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return {
    method: route.method.toUpperCase(),
    pattern: `/${segments.map((segment) => segment.replace(/^\{(.+)\}$/, ':$1')).join('/')}`,
    matcher: new RegExp(`^/${source}/?$`, 'i'),
    literalSegments: segments.filter((segment) => !segment.startsWith('{')).length,
  };
}
