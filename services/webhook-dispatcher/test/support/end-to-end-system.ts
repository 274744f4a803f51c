/**
 * Integration fixture for the whole delivery path: the StarPlan simulator over HTTP, the real sync on its
 * own database publishing through Kafka with the schema registry, and the webhook dispatcher on another
 * database consuming the changes topic through its own Kafka client, as the two would run in distributed mode.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { topics, type ChangeEvent } from '@timetable/contracts';
import { changeEvent } from '@timetable/contracts/testing';
import type { Knex } from '@timetable/db';
import { KafkaBus, type EventBus } from '@timetable/events';
import { DeveloperIdentity } from '@timetable/http';
import { serveModule, type ServedModule } from '@timetable/service-kit';
import { startSimulator, type RunningSimulator } from '@timetable/starplan-sim';
import { createSyncService, SYNC_SCHEMA, syncMigrations, type SyncRunResult, type SyncService } from '@timetable/sync';
import { captureLogger, createMigratedKnex, testInfrastructure } from '@timetable/testing';
import { createWebhookService, webhookMigrations, WEBHOOKS_SCHEMA, type WebhookServiceModule } from '../../src/index.js';
import type { Json } from './webhook-harness.js';

/** The simulator places its terms around this day; the sync's planning unit is pinned to its current one. */
export const SIMULATOR_TODAY = '2025-11-12';

export interface SyncRun {
  result: SyncRunResult;
  /** The change records of the run, read from the sync's outbox before they were relayed to Kafka. */
  changes: ChangeEvent[];
  /** The CloudEvents `ce_id` header of each change message, by change id. */
  cloudEventIds: Map<string, string>;
}

export interface EndToEndSystem {
  sim: RunningSimulator;
  webhooksKnex: Knex;
  webhooks: WebhookServiceModule;
  /** One sync run; its outbox is drained into Kafka before this resolves. */
  sync(): Promise<SyncRun>;
  /** A request to the dispatcher's public routes as a verified developer. */
  call(developerId: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }>;
  close(): Promise<void>;
}

export async function startEndToEndSystem(seed = 11): Promise<EndToEndSystem> {
  const infra = testInfrastructure();
  const { logger } = captureLogger('warn');
  const runId = randomUUID();
  // The matcher's own consumer group: parallel runs on the shared broker never take each other's partitions.
  const groupId = `webhook-e2e-${runId}`;
  const cleanups: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };
  try {
    const sim = await startSimulator({ seed, today: SIMULATOR_TODAY, port: 0 });
    cleanups.push(() => sim.stop());

    const syncStore = await createMigratedKnex(SYNC_SCHEMA, syncMigrations);
    cleanups.push(() => syncStore.close());
    const syncBus = new KafkaBus({
      brokers: infra.kafkaBrokers, clientId: `sync-e2e-${runId}`, schemaRegistryUrl: infra.schemaRegistryUrl,
      topics: [topics.changes], logger,
    });
    await syncBus.connect();
    cleanups.push(() => syncBus.disconnect());
    // Never started: no scheduler and no background relay, so each run's outbox can be read before it is drained.
    const syncService: SyncService = await createSyncService({
      knex: syncStore.knex, bus: changesOnly(syncBus), logger, upstreamBaseUrl: sim.url,
      planningUnit: sim.simulator.model.currentPuId, intervalSeconds: 3600, timeZone: 'Europe/Berlin', fetchTimeoutMs: 5000,
    });

    const webhookStore = await createMigratedKnex(WEBHOOKS_SCHEMA, webhookMigrations);
    cleanups.push(() => webhookStore.close());
    const webhookBus = new KafkaBus({
      brokers: infra.kafkaBrokers, clientId: `webhook-e2e-${runId}`, schemaRegistryUrl: infra.schemaRegistryUrl,
      topics: [topics.changes], logger,
    });
    await webhookBus.connect();
    cleanups.push(() => webhookBus.disconnect());
    cleanups.push(() => deleteConsumerGroup(infra.kafkaBrokers, groupId));
    const identity = new DeveloperIdentity('end-to-end-identity-secret-0123456789');
    // The hour-long interval keeps the scheduled cycle out of the way: the test runs cycles itself.
    const webhooks = await createWebhookService({
      knex: webhookStore.knex, bus: webhookBus, logger, identity, intervalSeconds: 3600, retryDelaysSeconds: [60, 300, 900],
      timeoutMs: 5000, breaker: { minRequests: 1000, failurePercent: 70, openSeconds: 30 }, allowCidrs: ['127.0.0.0/8'], denyCidrs: [],
      secretsKey: randomBytes(32), hostConcurrency: 4, retentionDays: 30, maxPendingHours: 72, disableAfterDays: 5, maxWebhooksPerDeveloper: 25, groupId,
    });
    // Served but not started: the test creates its webhooks first, then starts the matcher's consumer itself.
    const api = await serveModule(webhooks, { name: 'webhook-e2e', logger, startModule: false });
    cleanups.push(() => api.close());

    return {
      sim, webhooksKnex: webhookStore.knex, webhooks,
      sync: () => syncOnce(syncService, syncStore.knex),
      call: (developerId, method, path, body) => call(api, identity, developerId, method, path, body),
      async close() {
        await webhooks.stop();
        await close();
      },
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The dispatcher reads only the changes topic. Entity states stay off the shared compacted topic: their keys
 * (UUIDv5 of upstream ids) repeat across simulator seeds, so this university's states would overwrite the
 * ones a concurrently running test rebuilds from that topic.
 */
function changesOnly(bus: EventBus): EventBus {
  return {
    connect: () => bus.connect(),
    disconnect: () => bus.disconnect(),
    isHealthy: () => bus.isHealthy(),
    subscribe: (options) => bus.subscribe(options),
    publish: (events) => bus.publish(events.filter((event) => event.topic === topics.changes.name)),
  };
}

async function syncOnce(service: SyncService, knex: Knex): Promise<SyncRun> {
  const result = await service.runOnce();
  const rows: { value: unknown; headers: Record<string, string> }[] = await knex('outbox')
    .where({ topic: topics.changes.name })
    .orderBy('id')
    .select('value', 'headers');
  await service.relay.drain();
  const messages = rows.map((row) => ({ change: changeEvent.parse(row.value), ceId: row.headers.ce_id }));
  return {
    result,
    changes: messages.map(({ change }) => change).filter((change) => change.syncRunId === result.syncRunId),
    cloudEventIds: new Map(messages.map(({ change, ceId }) => [change.id, ceId ?? ''])),
  };
}

async function call(api: ServedModule, identity: DeveloperIdentity, developerId: string, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { ...identity.headersFor(developerId) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${api.url}/v1/timetable${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Json) : undefined };
}

/** A unique group per run would otherwise pile up on the shared broker. */
async function deleteConsumerGroup(brokers: string[], groupId: string): Promise<void> {
  const admin = new Kafka({ clientId: 'webhook-e2e-cleanup', brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    await admin.deleteGroups([groupId]);
  } finally {
    await admin.disconnect();
  }
}

/** Polls until `condition` holds; fails with `what` after `timeoutMs`. */
export async function waitFor(what: string, condition: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
