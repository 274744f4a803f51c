/**
 * The sync's store keeps its connections: opened when the service starts, kept through the minutes between
 * runs, and enough that no run, first, unchanged or changed, with the outbox relay polling beside it, opens
 * one of its own.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Knex } from '@timetable/db';
import { InProcessBus } from '@timetable/events';
import { openServiceStore } from '@timetable/service-kit';
import { startSimulator, type RunningSimulator } from '@timetable/starplan-sim';
import { captureLogger, createTestDatabase, type TestDatabase } from '@timetable/testing';
import { createSyncService, type SyncService } from '../src/create-sync-service.js';
import { SYNC_SCHEMA, syncMigrations } from '../src/migrations/index.js';
import { SYNC_CONNECTIONS_KEPT } from '../src/store-connections.js';

/** What of knex's pool (tarn) these tests watch. */
interface WatchedPool {
  numFree(): number;
  numUsed(): number;
  check(): void;
  on(event: 'createSuccess' | 'acquireSuccess', listener: () => void): void;
}

let database: TestDatabase;
let knex: Knex;
let sim: RunningSimulator;
let sync: SyncService;
const pool = () => (knex.client as { pool: WatchedPool }).pool;

beforeAll(async () => {
  database = await createTestDatabase();
  const { logger } = captureLogger('warn');
  knex = await openServiceStore({ connectionString: database.connectionString, schema: SYNC_SCHEMA, migrations: syncMigrations, logger, connectionsKept: SYNC_CONNECTIONS_KEPT });
  sim = await startSimulator({ seed: 5, today: '2025-11-12', port: 0 });
  sync = await createSyncService({
    knex,
    bus: new InProcessBus(logger),
    logger,
    upstreamBaseUrl: sim.url,
    planningUnit: sim.simulator.model.currentPuId,
    intervalSeconds: 3600,
    timeZone: 'Europe/Berlin',
    fetchTimeoutMs: 5000,
    relayIdleMs: 20,
  });
});
afterAll(async () => {
  await sync?.relay.stop();
  await sim?.stop();
  await knex?.destroy();
  await database?.drop();
});

describe("the sync's store connections", () => {
  it('are open once the store is', () => {
    expect(pool().numFree() + pool().numUsed()).toBe(SYNC_CONNECTIONS_KEPT);
  });

  it('are enough for every kind of run beside the relay: no run opens a connection', async () => {
    let opened = 0;
    let mostInUse = 0;
    pool().on('createSuccess', () => (opened += 1));
    pool().on('acquireSuccess', () => (mostInUse = Math.max(mostInUse, pool().numUsed())));
    await sync.relay.start();
    const first = await sync.runOnce();
    const unchanged = await sync.runOnce();
    sim.simulator.churn(9, 20);
    const changed = await sync.runOnce();
    await sync.relay.drain();
    expect([first, unchanged, changed].map((run) => run.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(unchanged.upstreamUnchanged).toBe(true);
    expect(changed.created + changed.updated + changed.deleted).toBeGreaterThan(0);
    expect(mostInUse).toBeGreaterThan(1);
    expect(mostInUse).toBeLessThanOrEqual(SYNC_CONNECTIONS_KEPT);
    expect(opened).toBe(0);
  });

  it('stay open through the idle time between runs, which is longer than the pool keeps other connections', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 10 * 60_000);
      pool().check();
      expect(pool().numFree() + pool().numUsed()).toBe(SYNC_CONNECTIONS_KEPT);
    } finally {
      vi.useRealTimers();
    }
  });
});
