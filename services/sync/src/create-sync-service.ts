/** Composition of the sync service: client, stores, runner, scheduler, relay and routes. */
import { Router } from 'express';
import { isDatabaseReachable, type Knex } from '@timetable/db';
import { OutboxRelay, type EventBus } from '@timetable/events';
import type { ServiceModule } from '@timetable/http';
import { PeriodicJob, type Logger } from '@timetable/observability';
import { icalUrlRoutes } from './features/ical-url/ical-url-routes.js';
import { SyncRunStore } from './features/write/sync-run-store.js';
import type { SyncRunResult } from './features/runs/run-result.js';
import { SyncRunner } from './features/runs/sync-runner.js';
import { UpstreamBodyStore } from './features/write/upstream-body-store.js';
import { SnapshotStore } from './features/write/snapshot-store.js';
import { StagedEntityStore } from './features/write/staged-entity-store.js';
import { statusRoutes } from './features/status/status-routes.js';
import { StarplanClient } from './features/read/starplan-client.js';
import { RefusalReport } from './features/validate/refusal-report.js';
import { SYNC_SCHEMA } from './migrations/index.js';

export interface SyncServiceDeps {
  /** A knex on the migrated `sync` schema. */
  knex: Knex;
  bus: EventBus;
  logger: Logger;
  /** StarPlan base URL (`json` and `ical` below it); empty means no upstream is configured. */
  upstreamBaseUrl: string;
  /** Forces the planning unit (UPSTREAM_PU). */
  planningUnit?: number | undefined;
  intervalSeconds: number;
  /** Zone for choosing today's planning unit and for feed times without TZID. */
  timeZone: string;
  fetchTimeoutMs?: number | undefined;
  /** UPSTREAM_MAX_BODY_BYTES; unset: 32 MiB. */
  maxBodyBytes?: number | undefined;
  /** Relay poll interval when idle (tests shorten it). */
  relayIdleMs?: number;
}

export type SyncService = ServiceModule & {
  /** One sync run now (shares a run already in flight). */
  runOnce(): Promise<SyncRunResult>;
  /** Resolves once the first run (started by the scheduler or runOnce) ended and its outbox rows are published. */
  whenFirstRunPublished(): Promise<void>;
  relay: OutboxRelay;
};

export function createSyncService(deps: SyncServiceDeps): Promise<SyncService> {
  const logger = deps.logger.child({ service: 'sync' });
  const snapshots = new SnapshotStore({ knex: deps.knex });
  const runs = new SyncRunStore({ knex: deps.knex });
  const relay = new OutboxRelay({ knex: deps.knex, schema: SYNC_SCHEMA, bus: deps.bus, logger, idleMs: deps.relayIdleMs });
  const client = new StarplanClient({
    baseUrl: deps.upstreamBaseUrl,
    timeZone: deps.timeZone,
    policy: {
      ...(deps.fetchTimeoutMs === undefined ? {} : { timeoutMs: deps.fetchTimeoutMs }),
      ...(deps.maxBodyBytes === undefined ? {} : { maxBodyBytes: deps.maxBodyBytes }),
    },
    refusals: new RefusalReport(logger),
  });
  const bodies = new UpstreamBodyStore({ knex: deps.knex });
  const staged = new StagedEntityStore({ knex: deps.knex });
  const runner = new SyncRunner({ knex: deps.knex, client, snapshots, staged, runs, bodies, relay, logger, timeZone: deps.timeZone, planningUnit: deps.planningUnit });
  let firstRunEnded: () => void = () => undefined;
  const firstRun = new Promise<void>((resolve) => (firstRunEnded = resolve));
  const runOnce = () => runner.runOnce().finally(firstRunEnded);
  // At start, then the interval after each run ended; a crashed run is logged, the next one still comes.
  const scheduler = new PeriodicJob({ name: 'sync', intervalMs: deps.intervalSeconds * 1000, run: runOnce, logger });

  const routes = Router();
  routes.use(statusRoutes(runs, deps.upstreamBaseUrl));
  routes.use(icalUrlRoutes(snapshots, deps.upstreamBaseUrl));

  return Promise.resolve({
    name: 'sync',
    routes,
    // Its own store only: neither the upstream nor Kafka (the outbox holds changes while it is down).
    readiness: [{ name: 'sync-database', check: () => isDatabaseReachable(deps.knex) }],
    runOnce,
    async whenFirstRunPublished() {
      await firstRun;
      // The relay's loop may hold the batch in flight, so wait for the outbox to be empty rather than drain.
      while ((await relay.backlog()) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    },
    relay,
    async start() {
      await relay.start();
      await scheduler.start();
    },
    async stop() {
      await scheduler.stop();
      await relay.stop();
    },
  });
}
