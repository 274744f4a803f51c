import { describe, expect, it } from 'vitest';
import { allApiRoutes } from '@timetable/contracts';
import { routeRules } from '../src/features/authentication/key-routes.js';

/** A concrete path for a contract path, with every parameter filled in. */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f');

const { isDeveloperArea, isKeyRoute } = routeRules(allApiRoutes);

describe('the gateway key and usage rules, derived from the route contract', () => {
  it.each(allApiRoutes.map((route) => [route.method, route.path, route]))('%s %s needs a key exactly when its entry says so', (_method, path, route) => {
    expect(isKeyRoute(concrete(path))).toBe(route.auth);
    expect(isKeyRoute(`${concrete(path).toUpperCase()}/`)).toBe(route.auth);
  });

  it('guards every path under a segment whose routes all need a key, so an unknown one is a 401 before a 404', () => {
    expect(isKeyRoute('/webhooks/anything/at/all')).toBe(true);
    expect(isKeyRoute('/developers/anything')).toBe(false);
    expect(isKeyRoute('/developers/register')).toBe(false);
  });

  it('are the same for the whole contract as for the cached-read path', () => {
    const rules = routeRules(allApiRoutes);
    for (const route of allApiRoutes) expect(rules.isKeyRoute(concrete(route.path)), route.path).toBe(isKeyRoute(concrete(route.path)));
  });

  it('follow the route list they are given, and nothing else', () => {
    const rules = routeRules(allApiRoutes.filter((route) => route.service === 'catalog-api'));
    expect(rules.isKeyRoute('/webhooks/anything')).toBe(false);
    expect(rules.isDeveloperArea('/developers/me')).toBe(false);
  });

  it('counts the routes of developer-auth and webhook-dispatcher as the developer area, and nothing else', () => {
    for (const route of allApiRoutes) {
      const developerService = route.service === 'developer-auth' || route.service === 'webhook-dispatcher';
      expect(isDeveloperArea(concrete(route.path)), `${route.method} ${route.path}`).toBe(developerService);
    }
  });
});

describe('the route contract', () => {
  it('gives every path exactly one owning service', () => {
    const owners = new Map<string, Set<string>>();
    for (const route of allApiRoutes) owners.set(route.path, (owners.get(route.path) ?? new Set()).add(route.service));
    for (const [path, services] of owners) expect([...services], path).toHaveLength(1);
  });

  it('documents each method and path once', () => {
    const keys = allApiRoutes.map((route) => `${route.method} ${route.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
