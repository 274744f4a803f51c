import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as contracts from '../src/index.js';
import type { ApiRoute, RouteGroup } from '../src/index.js';

const API_DIR = fileURLToPath(new URL('../src/api/', import.meta.url));

/**
 * Every route group the package declares: by convention an `*Api` constant made by `defineRoutes` in an
 * `api/*-routes.ts` module. Read from the modules, not the index, since the index names what it exports.
 */
async function declaredRouteGroups(): Promise<[string, RouteGroup][]> {
  const modules = readdirSync(API_DIR).filter((file) => file.endsWith('-routes.ts'));
  const loaded = await Promise.all(modules.map(async (file) => (await import(pathToFileURL(API_DIR + file).href)) as Record<string, unknown>));
  return loaded.flatMap((module) => Object.entries(module)).filter(([name]) => name.endsWith('Api')).map(([name, group]) => [name, group as RouteGroup]);
}

describe('allApiRoutes', () => {
  it('finds the declared route groups', async () => {
    const groups = await declaredRouteGroups();
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

  it('lists every route of every declared *Api group, so a new group cannot be forgotten', async () => {
    const listed = new Set<ApiRoute>(contracts.allApiRoutes);
    const missing = (await declaredRouteGroups()).flatMap(([name, group]) =>
      Object.entries(group)
        .filter(([, route]) => !listed.has(route))
        .map(([key, route]) => `${name}.${key} (${route.method.toUpperCase()} ${route.path})`),
    );
    expect(missing, 'add the group to libs/contracts/src/api/all-routes.ts').toEqual([]);
  });

  it('exports every declared group from the index, for the service that serves it', async () => {
    const exported = new Set(Object.keys(contracts));
    const unexported = (await declaredRouteGroups()).map(([name]) => name).filter((name) => !exported.has(name));
    expect(unexported, 'add the group to libs/contracts/src/index.ts').toEqual([]);
  });

  it('lists nothing twice', () => {
    const keys = contracts.allApiRoutes.map((route) => `${route.method} ${route.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
