import { describe, expect, it } from 'vitest';
import * as contracts from '../src/index.js';
import type { ApiRoute, RouteGroup } from '../src/index.js';

/** Every route group the package exports: by convention an `*Api` constant made by `defineRoutes`. */
function exportedRouteGroups(): [string, RouteGroup][] {
  const exported: [string, unknown][] = Object.entries(contracts);
  return exported.filter(([name]) => name.endsWith('Api')).map(([name, group]) => [name, group as RouteGroup]);
}

describe('allApiRoutes', () => {
  it('finds the exported route groups', () => {
    const groups = exportedRouteGroups();
    expect(groups.length).toBeGreaterThan(0);
    for (const [name, group] of groups) {
      const routes = Object.values(group);
      expect(routes.length, `${name} is empty`).toBeGreaterThan(0);
      for (const route of routes) {
        expect(route, `${name} holds something other than routes`).toMatchObject({
          method: expect.any(String),
          path: expect.any(String),
          service: expect.any(String),
        });
      }
    }
  });

  it('lists every route of every exported *Api group, so a new group cannot be forgotten', () => {
    const listed = new Set<ApiRoute>(contracts.allApiRoutes);
    const missing = exportedRouteGroups().flatMap(([name, group]) =>
      Object.entries(group)
        .filter(([, route]) => !listed.has(route))
        .map(([key, route]) => `${name}.${key} (${route.method.toUpperCase()} ${route.path})`),
    );
    expect(missing, 'add the group to libs/contracts/src/api/all-routes.ts').toEqual([]);
  });

  it('lists nothing twice', () => {
    const keys = contracts.allApiRoutes.map((route) => `${route.method} ${route.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
