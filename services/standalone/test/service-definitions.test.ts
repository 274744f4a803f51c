import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_TOPICS, allApiRoutes } from '@timetable/contracts';
import { GATEWAY_ENTRY, STACK_SERVICES } from '../../../scripts/stack/stack-topology.js';
import { PROCESS_DEFINITIONS, SERVICE_DEFINITIONS } from '../src/service-definitions.js';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const names = PROCESS_DEFINITIONS.map((definition) => definition.name);

function sourceOf(dir: string): string {
  return readdirSync(dir)
    .map((name) => path.join(dir, name))
    .map((file) => (statSync(file).isDirectory() ? sourceOf(file) : file.endsWith('.ts') ? readFileSync(file, 'utf8') : ''))
    .join('\n');
}

describe('the service definitions', () => {
  it('name each service once, each the package services/<name> whose main.ts runs it', () => {
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) {
      expect(existsSync(path.join(repoRoot, 'services', name, 'package.json')), name).toBe(true);
      expect(readFileSync(path.join(repoRoot, 'services', name, 'src/main.ts'), 'utf8'), name).toMatch(/runService\(\w+Service\);/);
    }
  });

  it('consume and produce topics of the contracts, a consumer listed before the producer it reads from', () => {
    const known = ALL_TOPICS.map((topic) => topic.name);
    const definitions: readonly (typeof PROCESS_DEFINITIONS)[number][] = PROCESS_DEFINITIONS;
    for (const [index, definition] of definitions.entries()) {
      for (const topic of [...definition.consumes, ...definition.produces]) expect(known, definition.name).toContain(topic);
      for (const topic of definition.consumes) {
        const producers = definitions.filter((other) => other.produces.includes(topic));
        expect(producers, `a producer of ${topic}`).not.toHaveLength(0);
        for (const producer of producers) expect(definitions.indexOf(producer), `${producer.name} produces ${topic} for ${definition.name}`).toBeGreaterThan(index);
      }
    }
    // Everything produced is read by someone.
    for (const topic of definitions.flatMap((definition) => definition.produces)) expect(definitions.some((other) => other.consumes.includes(topic)), topic).toBe(true);
  });

  it('serve route groups they own, and together every public route exactly once', () => {
    const served = PROCESS_DEFINITIONS.flatMap((definition) =>
      definition.routes.flatMap((group) => Object.values(group)).map((route) => {
        expect(route.service, `${route.method} ${route.path}`).toBe(definition.name);
        return `${route.method} ${route.path}`;
      }),
    );
    expect(served.sort()).toEqual(allApiRoutes.map((route) => `${route.method} ${route.path}`).sort());
  });

  it('list every periodic job their package starts', () => {
    for (const definition of PROCESS_DEFINITIONS) {
      const source = sourceOf(path.join(repoRoot, 'services', definition.name, 'src'));
      for (const [, job] of source.matchAll(/new PeriodicJob\(\{\s*name: '([^']+)'/g)) expect(definition.jobs, definition.name).toContain(job);
    }
  });

  it('are what the local stack starts, with their replicas and Node options, the gateway in front', () => {
    expect(STACK_SERVICES.map((service) => service.name)).toEqual(SERVICE_DEFINITIONS.map((definition) => definition.name));
    expect(existsSync(path.join(repoRoot, GATEWAY_ENTRY))).toBe(true);
    for (const [index, service] of STACK_SERVICES.entries()) {
      const definition = SERVICE_DEFINITIONS[index]!;
      expect(service).toEqual({ name: definition.name, entry: `services/${definition.name}/src/main.ts`, scalable: definition.scalable, nodeOptions: definition.nodeOptions ?? [] });
      expect(existsSync(path.join(repoRoot, service.entry))).toBe(true);
    }
  });
});
