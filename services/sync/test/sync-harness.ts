/** Integration fixture: a simulator over HTTP, a migrated `sync` schema and a bus that records what arrives. */
import { startSimulator, type RunningSimulator } from '@timetable/starplan-sim';
import { topics, type ChangeEvent, type EntityState } from '@timetable/contracts';
import type { Knex } from '@timetable/db';
import { InProcessBus, type EventBus, type IncomingEvent } from '@timetable/events';
import { captureLogger, createMigratedKnex } from '@timetable/testing';
import { createSyncService, type SyncService, type SyncServiceDeps } from '../src/create-sync-service.js';
import { SYNC_SCHEMA, syncMigrations } from '../src/migrations/index.js';

export const TODAY = '2025-11-12';

export interface SyncHarness {
  sim: RunningSimulator;
  knex: Knex;
  bus: EventBus;
  changes: IncomingEvent<ChangeEvent>[];
  states: IncomingEvent<EntityState>[];
  /** What the services logged at warn and above. */
  logs: () => Record<string, unknown>[];
  /** A sync service reading the simulator, or another upstream (a proxy in front of it), with settings of its own. */
  service(upstreamBaseUrl?: string, settings?: Partial<SyncServiceDeps>): Promise<SyncService>;
  /** Runs once and publishes; returns the run and the change records it produced. */
  sync(service?: SyncService): Promise<{ result: Awaited<ReturnType<SyncService['runOnce']>>; changes: ChangeEvent[] }>;
  snapshot(entityType?: string): Promise<{ entity_type: string; entity_id: string; data: Record<string, unknown> }[]>;
  close(): Promise<void>;
}

export async function createSyncHarness(seed = 7): Promise<SyncHarness> {
  const sim = await startSimulator({ seed, today: TODAY, port: 0 });
  const { knex, close } = await createMigratedKnex(SYNC_SCHEMA, syncMigrations);
  const { logger, lines } = captureLogger('warn');
  const bus: EventBus = new InProcessBus(logger);
  const changes: IncomingEvent<ChangeEvent>[] = [];
  const states: IncomingEvent<EntityState>[] = [];
  await bus.subscribe({ groupId: 'test-changes', topic: topics.changes, fromBeginning: true, handleBatch: async (batch) => void changes.push(...batch) }).start();
  await bus.subscribe({ groupId: 'test-entities', topic: topics.entities, fromBeginning: true, handleBatch: async (batch) => void states.push(...batch) }).start();
  const service = (upstreamBaseUrl = sim.url, settings: Partial<SyncServiceDeps> = {}) =>
    createSyncService({
      knex,
      bus,
      logger,
      upstreamBaseUrl,
      // The simulator places its terms around TODAY, not around the real date.
      planningUnit: sim.simulator.model.currentPuId,
      intervalSeconds: 3600, timeZone: 'Europe/Berlin', fetchTimeoutMs: 5000, ...settings });
  const defaultService = await service();
  return {
    sim,
    knex,
    bus,
    changes,
    states,
    logs: lines,
    service,
    async sync(target = defaultService) {
      const result = await target.runOnce();
      await target.relay.drain();
      return { result, changes: changes.filter((event) => event.value?.syncRunId === result.syncRunId).map((event) => event.value as ChangeEvent) };
    },
    snapshot: (entityType) => {
      const query = knex('snapshot_entities').select('entity_type', 'entity_id', 'data');
      return entityType ? query.where({ entity_type: entityType }) : query;
    },
    async close() {
      await sim.stop();
      await close();
    },
  };
}

/** A lecture listed by exactly one group, and an occurrence of it that is scheduled. */
export function lectureOfOneGroup(harness: SyncHarness) {
  const model = harness.sim.simulator.model;
  const listings = new Map<number, number[]>();
  for (const group of model.groups.values()) for (const id of group.lectureIds) listings.set(id, [...(listings.get(id) ?? []), group.id]);
  for (const [lectureId, pgids] of listings) {
    const occurrences = model.occurrencesOfLecture(model.currentPuId, lectureId).filter((occurrence) => !occurrence.cancelled);
    if (pgids.length === 1 && occurrences.length > 2) return { lectureId, pgid: pgids[0]!, occurrence: occurrences[1]! };
  }
  throw new Error('no lecture listed by a single group');
}
