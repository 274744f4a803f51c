/**
 * One scale of the sync bench, in a process of its own: the first sync of the simulator university (after the
 * simulator warmed on another term's feeds), publishing its outbox, two unchanged re-syncs back to back, and
 * a re-sync after the simulator changed about one percent of the events.
 */
import { topics } from '@timetable/contracts';
import { createLogger } from '@timetable/observability';
import { createSyncService } from '@timetable/sync';
import { hashesLastRead } from '../support/bare-fetch.js';
import { PublishOnlyBus } from '../support/publish-only-bus.js';
import { freePort, startSimulatorProcess } from '../support/upstream-process.js';
import { assertWarmedElsewhere, warmSimulator } from '../support/warm-upstream.js';
import { withSyncDatabase } from './bench-database.js';
import { measureStep, runStep } from './measure-step.js';
import type { ScaleReport } from './scale-report.js';
import { churnSimulator } from './simulator-churn.js';

export const SYNC_TIME_ZONE = 'Europe/Berlin';
/** Passes over another term's feeds that warm the simulator before the first sync, and how many feeds at most. */
const UPSTREAM_WARM_UP_PASSES = 4;
const UPSTREAM_WARM_UP_FEEDS = 720;

export async function benchOneScale(scale: number): Promise<ScaleReport> {
  const logger = createLogger({ name: 'sync-bench', level: 'warn' });
  const port = await freePort();
  const simulator = await startSimulatorProcess(port, scale);
  const measure = <T>(work: () => Promise<T>) => measureStep(work, simulator.cpuSeconds);
  const simulatorUrl = `http://127.0.0.1:${port}/splan`;
  try {
    return await withSyncDatabase(logger, async (knex) => {
      const sync = await createSyncService({
        knex,
        // Kafka in the distributed mode: what is published leaves the process (support/publish-only-bus.ts).
        bus: new PublishOnlyBus(),
        logger,
        upstreamBaseUrl: simulatorUrl,
        intervalSeconds: 3600,
        timeZone: SYNC_TIME_ZONE,
        fetchTimeoutMs: 60_000,
      });
      const warmUp = await warmSimulator(simulatorUrl, UPSTREAM_WARM_UP_PASSES, UPSTREAM_WARM_UP_FEEDS, simulator.cpuSeconds);
      const first = await measure(() => sync.runOnce());
      const publish = await measure(() => sync.relay.drain());
      assertWarmedElsewhere(warmUp, (await hashesLastRead(knex, simulatorUrl)).keys());
      const unchanged = await measure(() => sync.runOnce());
      const unchangedWarm = await measure(() => sync.runOnce());
      const count = async (entityType?: string) => {
        const query = knex('snapshot_entities').count<{ count: string }[]>({ count: '*' });
        if (entityType) query.where({ entity_type: entityType });
        return Number((await query)[0]?.count ?? 0);
      };
      const events = await count('event');
      const entities = await count();
      const operations = await churnSimulator(`${simulatorUrl}/__admin`, events);
      const churned = await measure(() => sync.runOnce());
      const [changed] = await knex('outbox')
        .where({ topic: topics.changes.name })
        .whereRaw(`value->>'syncRunId' = ?`, [churned.result.syncRunId])
        .whereRaw(`value->>'entityType' = 'event'`)
        .count<{ count: string }[]>({ count: '*' });
      await sync.relay.drain();
      const firstSync = runStep(first);
      const shareOfFirst = <T extends { seconds: number }>(step: T) => ({ ...step, shareOfFirst: step.seconds / firstSync.seconds });
      return {
        scale,
        events,
        entities,
        upstreamWarmUp: warmUp,
        firstSync,
        publishOutbox: publish.step,
        unchangedResync: shareOfFirst(runStep(unchanged)),
        unchangedResyncWarm: shareOfFirst(runStep(unchangedWarm)),
        churn: { operations, eventsChanged: Number(changed?.count ?? 0), shareOfEvents: Number(changed?.count ?? 0) / events },
        churnResync: shareOfFirst(runStep(churned)),
      };
    });
  } finally {
    simulator.stop();
  }
}
