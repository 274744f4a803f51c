import type { ApiRoute } from '@timetable/contracts';

const METHODS = new Set(['get', 'post', 'patch', 'delete']);

/**
 * Every `ApiRoute[]` a module exports (the contracts package's route lists), deduplicated by method and
 * path. Scanning the exports means a service's newly published route list is documented without
 * touching the gateway.
 */
export function collectApiRoutes(moduleExports: Record<string, unknown>): ApiRoute[] {
  const byKey = new Map<string, ApiRoute>();
  for (const value of Object.values(moduleExports)) {
    if (!Array.isArray(value) || value.length === 0 || !value.every(isApiRoute)) continue;
    for (const route of value) byKey.set(`${route.method} ${route.path}`, route);
  }
  return [...byKey.values()].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
}

function isApiRoute(value: unknown): value is ApiRoute {
  if (typeof value !== 'object' || value === null) return false;
  const route = value as Partial<ApiRoute>;
  return (
    typeof route.method === 'string' &&
    METHODS.has(route.method) &&
    typeof route.path === 'string' &&
    route.path.startsWith('/') &&
    typeof route.responses === 'object' &&
    route.responses !== null
  );
}
