import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topics, type ChangeEvent } from '@timetable/contracts';
import { changeEvent, entityState } from '@timetable/contracts/testing';
import type { Knex } from '@timetable/db';
import { KafkaBus } from '@timetable/events';
import { startSimulator, type RunningSimulator } from '@timetable/starplan-sim';
import { captureLogger, createMigratedKnex, testInfrastructure } from '@timetable/testing';
import { createSyncService, SYNC_SCHEMA, syncMigrations, type SyncRunResult } from '../src/index.js';

interface RawMessage {
  topic: string;
  key: string;
  value: Buffer | null;
  headers: Record<string, string>;
}

// Its own topics and registry subjects: what other runs left on the shared broker and registry cannot interfere.
const prefix = `synctest${randomUUID().slice(0, 8)}.`;
const CHANGES = `${prefix}${topics.changes.name}`;
const ENTITIES = `${prefix}${topics.entities.name}`;

let sim: RunningSimulator;
let knex: Knex;
let closeDatabase: () => Promise<void>;
let bus: KafkaBus;
let consumer: Consumer;
const received: RawMessage[] = [];
let run: SyncRunResult;
let snapshot: Map<string, Record<string, unknown>>;

/** Registry framing: magic byte 0, a 4-byte schema id, then the JSON document. */
const payloadOf = (value: Buffer): unknown => JSON.parse(value.subarray(5).toString('utf8'));

async function waitFor(condition: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for Kafka messages');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

beforeAll(async () => {
  const infra = testInfrastructure();
  const { logger } = captureLogger('warn');
  sim = await startSimulator({ seed: 3, today: '2025-11-12', port: 0 });
  ({ knex, close: closeDatabase } = await createMigratedKnex(SYNC_SCHEMA, syncMigrations));
  bus = new KafkaBus({ brokers: infra.kafkaBrokers, clientId: 'sync-test', schemaRegistryUrl: infra.schemaRegistryUrl, topicPrefix: prefix, topics: [topics.changes, topics.entities], logger });
  await bus.connect();
  const service = await createSyncService({
    knex,
    bus,
    logger,
    upstreamBaseUrl: sim.url,
    planningUnit: sim.simulator.model.currentPuId,
    intervalSeconds: 3600,
    timeZone: 'Europe/Berlin',
  });
  run = await service.runOnce();
  await service.relay.drain();
  const rows: { entity_type: string; entity_id: string; data: Record<string, unknown> }[] = await knex('snapshot_entities').select('entity_type', 'entity_id', 'data');
  snapshot = new Map(rows.map((row) => [`${row.entity_type}:${row.entity_id}`, row.data]));

  const kafka = new Kafka({ clientId: 'sync-test-reader', brokers: infra.kafkaBrokers, logLevel: logLevel.NOTHING });
  consumer = kafka.consumer({ groupId: `sync-test-${randomUUID()}` });
  await consumer.connect();
  await consumer.subscribe({ topics: [CHANGES, ENTITIES], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ topic, message }) => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(message.headers ?? {})) if (value !== undefined) headers[name] = value.toString();
      received.push({ topic, key: message.key?.toString('utf8') ?? '', value: message.value, headers });
    },
  });
  const expected = run.created + run.updated + run.deleted;
  const ours = () => received.filter((message) => message.topic === CHANGES && message.value && (payloadOf(message.value) as ChangeEvent).syncRunId === run.syncRunId);
  await waitFor(() => ours().length >= expected && received.filter((message) => message.topic === ENTITIES && snapshot.has(message.key)).length >= expected);
}, 180_000);

afterAll(async () => {
  await consumer?.disconnect();
  await bus?.disconnect();
  await sim?.stop();
  await closeDatabase?.();
});

describe('sync over Kafka with the schema registry', () => {
  it('publishes each change once on timetable.changes.v1 with its key, CloudEvents headers and registry framing', async () => {
    const changes = received.filter((message) => message.topic === CHANGES && message.value && (payloadOf(message.value) as ChangeEvent).syncRunId === run.syncRunId);
    expect(changes).toHaveLength(snapshot.size);
    for (const message of changes) {
      expect(message.value?.[0]).toBe(0);
      const change = changeEvent.parse(payloadOf(message.value!));
      expect(message.key).toBe(`${change.entityType}:${change.entityId}`);
      expect(message.headers).toMatchObject({
        ce_specversion: '1.0',
        ce_id: change.id,
        ce_type: `timetable.${change.entityType}.${change.action}`,
        ce_source: '/timetable/sync',
        ce_time: change.createdAt,
        'content-type': 'application/json',
      });
    }
    const schemaId = changes[0]!.value!.readUInt32BE(1);
    const registered = await fetch(`${testInfrastructure().schemaRegistryUrl}/schemas/ids/${schemaId}`);
    expect(registered.status).toBe(200);
  });

  it('rebuilds the current state by reading timetable.entities.v1 from the beginning, every state passing the typed schema', () => {
    // Replay only the states this run published, known by their ce_id.
    const ourChangeIds = new Set(
      received
        .filter((message) => message.topic === CHANGES && message.value)
        .map((message) => changeEvent.parse(payloadOf(message.value!)))
        .filter((change) => change.syncRunId === run.syncRunId)
        .map((change) => change.id),
    );
    const rebuilt = new Map<string, Record<string, unknown> | null>();
    for (const message of received) {
      if (message.topic !== ENTITIES || !ourChangeIds.has(message.headers.ce_id ?? '')) continue;
      rebuilt.set(message.key, message.value === null ? null : entityState.parse(payloadOf(message.value)).data);
    }
    expect(rebuilt.size).toBe(snapshot.size);
    for (const [key, data] of snapshot) expect(rebuilt.get(key)).toEqual(data);
  });
});
