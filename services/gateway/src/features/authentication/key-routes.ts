import { allApiRoutes, type ApiRoute, type ServiceName } from '@timetable/contracts';

/** The services whose routes are developer usage: counted per developer and exempt from the per-IP read limits. */
const DEVELOPER_SERVICES: ReadonlySet<ServiceName> = new Set(['developer-auth', 'webhook-dispatcher']);

export interface RouteRules {
  /** True when the path (relative to /v1/timetable) needs an API key. */
  isKeyRoute(path: string): boolean;
  /** True for the developer routes: counted as developer usage, exempt from read limits. */
  isDeveloperArea(path: string): boolean;
}

/**
 * The gateway's key and usage rules, derived from the route contract. Matching is case-insensitive and
 * tolerates a trailing slash because Express routing does both: a stricter match here would let
 * `/Developers/me` reach the service without a key check. A first segment all of whose routes need a key
 * (`/webhooks`) needs one for any path below it, so an unknown path there is a 401 before it is a 404.
 */
export function routeRules(routes: readonly ApiRoute[]): RouteRules {
  const bySegment = new Map<string, ApiRoute[]>();
  for (const route of routes) bySegment.set(firstSegment(route.path), [...(bySegment.get(firstSegment(route.path)) ?? []), route]);
  const keyAreas = [...bySegment].filter(([, group]) => group.every((route) => route.auth)).map(([segment]) => segment);
  const developerAreas = [...bySegment].filter(([, group]) => group.some((route) => DEVELOPER_SERVICES.has(route.service))).map(([segment]) => segment);
  const keyPatterns = routes.filter((route) => route.auth).map((route) => pathPattern(route.path));
  const keyArea = areaPattern(keyAreas);
  const developerArea = areaPattern(developerAreas);
  return {
    isKeyRoute: (path) => keyArea.test(path) || keyPatterns.some((pattern) => pattern.test(path)),
    isDeveloperArea: (path) => developerArea.test(path),
  };
}

const contractRules = routeRules(allApiRoutes);

export function isKeyRoute(path: string): boolean {
  return contractRules.isKeyRoute(path);
}

export function isDeveloperArea(path: string): boolean {
  return contractRules.isDeveloperArea(path);
}

function firstSegment(path: string): string {
  return path.split('/')[1] ?? '';
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `/webhooks/{id}` -> a pattern for `/webhooks/<anything but a slash>`, with an optional trailing slash. */
function pathPattern(path: string): RegExp {
  const source = path
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => (segment.startsWith('{') ? '[^/]+' : escape(segment)))
    .join('/');
  return new RegExp(`^/${source}/?$`, 'i');
}

/** Any path whose first segment is one of `segments`. */
function areaPattern(segments: string[]): RegExp {
  if (segments.length === 0) return /(?!)/;
  return new RegExp(`^/(?:${segments.map(escape).join('|')})(?:/.*)?$`, 'i');
}
