/**
 * Integration fixture: the real sync reading the StarPlan simulator over HTTP, its outbox relayed through an
 * in-process bus into the real catalog projection, and the catalog routes behind an HTTP server. Sync and
 * catalog each get their own fresh database, as they would in distributed mode.
 */
import { MemoryCache } from '@timetable/cache';
import { InProcessBus } from '@timetable/events';
import { startSimulator, type RunningSimulator } from '@timetable/starplan-sim';
import { createSyncService, SYNC_SCHEMA, syncMigrations, type SyncService } from '@timetable/sync';
import { serveModule } from '@timetable/service-kit';
import { captureLogger, createMigratedKnex } from '@timetable/testing';
import { CATALOG_SCHEMA, catalogMigrations, createCatalogService } from '../../src/index.js';

export const TIME_ZONE = 'Europe/Berlin';
export const ICAL_DOMAIN = 'timetable.example.edu';
/** The simulator places its terms around this day: the winter term 2026/27 with the October DST change. */
export const SIMULATOR_TODAY = '2026-11-22';

export interface RealSyncSystem {
  sim: RunningSimulator;
  /** The catalog's clock (`now` of the iCal horizon). */
  clock: { now: Date };
  /** One sync run against the simulator, then waits until the catalog projected everything it emitted. */
  sync(): Promise<Awaited<ReturnType<SyncService['runOnce']>>>;
  /** How many entities of a type the sync snapshot holds. */
  snapshotCount(entityType: string): Promise<number>;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  json<T>(path: string): Promise<T>;
  close(): Promise<void>;
}

export async function startRealSyncSystem(options: { seed: number; now: Date }): Promise<RealSyncSystem> {
  const sim = await startSimulator({ seed: options.seed, today: SIMULATOR_TODAY, port: 0 });
  const syncStore = await createMigratedKnex(SYNC_SCHEMA, syncMigrations);
  const catalogStore = await createMigratedKnex(CATALOG_SCHEMA, catalogMigrations);
  const { logger } = captureLogger('warn');
  const bus = new InProcessBus(logger);
  const clock = { now: options.now };
  const catalog = await createCatalogService({
    knex: catalogStore.knex,
    bus,
    cache: new MemoryCache(),
    logger,
    timeZone: TIME_ZONE,
    icalDomain: ICAL_DOMAIN,
    now: () => clock.now,
  });
  // The in-process bus delivers only to running subscribers: the projection starts before anything is published.
  const server = await serveModule(catalog, { name: 'catalog-real-sync-test', logger });
  const sync = await createSyncService({
    knex: syncStore.knex,
    bus,
    logger,
    upstreamBaseUrl: sim.url,
    // The simulator's terms lie around SIMULATOR_TODAY, not around the real date.
    planningUnit: sim.simulator.model.currentPuId,
    intervalSeconds: 3600,
    timeZone: TIME_ZONE,
    fetchTimeoutMs: 5000,
  });
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${server.url}/v1/timetable${path}`, { headers });
  return {
    sim,
    clock,
    async sync() {
      const result = await sync.runOnce();
      // publish() of the in-process bus resolves after the projection handled the batch.
      await sync.relay.drain();
      return result;
    },
    async snapshotCount(entityType) {
      const row: { count: number } | undefined = await syncStore.knex('snapshot_entities').where({ entity_type: entityType }).count<{ count: number }[]>({ count: '*' }).first();
      return Number(row?.count ?? 0);
    },
    get,
    async json<T>(path: string) {
      const response = await get(path);
      if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${await response.text()}`);
      return (await response.json()) as T;
    },
    async close() {
      await sync.stop();
      await server.close();
      await sim.stop();
      await Promise.all([syncStore.close(), catalogStore.close()]);
    },
  };
}
