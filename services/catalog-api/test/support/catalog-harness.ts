import { createHash } from 'node:crypto';
import type { Router } from 'express';
import { MemoryCache } from '@timetable/cache';
import { entityKey, topics, type EntityDataByType, type EntityState, type EntityType } from '@timetable/contracts';
import type { Knex } from '@timetable/db';
import { InProcessBus } from '@timetable/events';
import { serveModule } from '@timetable/service-kit';
import { captureLogger, createMigratedKnex } from '@timetable/testing';
import { CATALOG_SCHEMA, catalogMigrations, createCatalogService } from '../../src/index.js';

export const TIME_ZONE = 'Europe/Berlin';
export const ICAL_DOMAIN = 'timetable.example.edu';

export type StateInput = { [T in EntityType]: { type: T; data: EntityDataByType[T]; updatedAt?: string } }[EntityType];

/** An entity state as sync publishes it: the content hash is the hash of the data. */
export function stateOf(input: StateInput): EntityState {
  // The input pairs type and data per entity type; TypeScript cannot follow that pairing into the union.
  return {
    entityType: input.type,
    entityId: input.data.id,
    data: input.data,
    contentHash: createHash('sha256').update(JSON.stringify(input.data)).digest('hex'),
    updatedAt: input.updatedAt ?? '2026-01-10T12:00:00.000Z',
  } as EntityState;
}

export interface CatalogHarness {
  knex: Knex;
  cache: MemoryCache;
  clock: { now: Date };
  /** The service's routes, for a gateway put in front of them in the same process. */
  routes: Router;
  publish(states: (EntityState | { tombstone: string })[]): Promise<void>;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  json<T = Record<string, unknown>>(path: string): Promise<{ status: number; body: T }>;
  close(): Promise<void>;
}

/** The catalog service on a fresh database behind a real HTTP server, fed through an in-process bus. */
export async function startCatalog(now = new Date('2026-03-01T00:00:00.000Z'), cache = new MemoryCache()): Promise<CatalogHarness> {
  const database = await createMigratedKnex(CATALOG_SCHEMA, catalogMigrations);
  const { logger } = captureLogger('warn');
  const bus = new InProcessBus(logger);
  const clock = { now };
  const module = await createCatalogService({
    knex: database.knex,
    bus,
    cache,
    logger,
    timeZone: TIME_ZONE,
    icalDomain: ICAL_DOMAIN,
    now: () => clock.now,
  });
  const server = await serveModule(module, { name: 'catalog-test', logger });
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${server.url}/v1/timetable${path}`, { headers });
  return {
    knex: database.knex,
    cache,
    clock,
    routes: module.routes,
    publish: (states) =>
      bus.publish(
        states.map((state) =>
          'tombstone' in state
            ? { topic: topics.entities.name, key: state.tombstone, value: null }
            : { topic: topics.entities.name, key: entityKey(state.entityType, state.entityId), value: state },
        ),
      ),
    get,
    async json<T>(path: string) {
      const response = await get(path);
      return { status: response.status, body: (await response.json()) as T };
    },
    async close() {
      await server.close();
      await database.close();
    },
  };
}
