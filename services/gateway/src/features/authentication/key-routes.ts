import { firstSegment, RouteMatcher, type ApiRoute, type ServiceName } from '@timetable/contracts';

/** The services whose routes are developer usage: counted per developer and exempt from the per-IP read limits. */
const DEVELOPER_SERVICES: ReadonlySet<ServiceName> = new Set(['developer-auth', 'webhook-dispatcher']);

export interface RouteRules {
  /** True when the path (relative to /v1/timetable) needs an API key. */
  isKeyRoute(path: string): boolean;
  /** True for the developer routes: counted as developer usage, exempt from read limits. */
  isDeveloperArea(path: string): boolean;
}

/**
 * The gateway's key and usage rules, derived from the route contract through its path matcher, which
 * matches as Express does (any case, a trailing slash): a stricter match here would let `/Developers/me`
 * reach the service without a key check. A first segment all of whose routes need a key (`/webhooks`) needs
 * one for any path below it, so an unknown path there is a 401 before it is a 404.
 */
export function routeRules(routes: readonly ApiRoute[]): RouteRules {
  const bySegment = new Map<string, ApiRoute[]>();
  for (const route of routes) bySegment.set(firstSegment(route.path), [...(bySegment.get(firstSegment(route.path)) ?? []), route]);
  const keyAreas = segmentsWhere(bySegment, (group) => group.every((route) => route.auth));
  const developerAreas = segmentsWhere(bySegment, (group) => group.some((route) => DEVELOPER_SERVICES.has(route.service)));
  const keyRoutes = new RouteMatcher(routes.filter((route) => route.auth));
  return {
    isKeyRoute: (path) => keyAreas.has(firstSegment(path)) || keyRoutes.find(path) !== undefined,
    isDeveloperArea: (path) => developerAreas.has(firstSegment(path)),
  };
}

function segmentsWhere(bySegment: Map<string, ApiRoute[]>, holds: (group: ApiRoute[]) => boolean): ReadonlySet<string> {
  return new Set([...bySegment].filter(([, group]) => holds(group)).map(([segment]) => segment));
}
