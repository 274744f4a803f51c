import { expressPath, RouteMatcher, type ApiRoute } from '@timetable/contracts';

/**
 * Maps a concrete request path back to its documented route pattern (`/webhooks/{id}` -> `/webhooks/:id`),
 * so usage is counted per endpoint, not per id, in both modes (a proxy never sees Express route patterns).
 */
export class EndpointPatterns {
  private readonly matcher: RouteMatcher;

  constructor(apiRoutes: readonly ApiRoute[]) {
    this.matcher = new RouteMatcher(apiRoutes);
  }

  /** The Express-style pattern relative to /v1/timetable, or null when no documented route matches. */
  match(method: string, path: string): string | null {
    const route = this.matcher.find(path, method);
    return route ? expressPath(route.path) : null;
  }
}
