import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_TOPICS, topics, type ChangeEvent } from '@timetable/contracts';
import { KafkaBus } from '@timetable/events';
import { captureLogger, createTestDatabase, testInfrastructure, type TestDatabase } from '@timetable/testing';

/**
 * The changes process on real Kafka and PostgreSQL whose handler keeps failing (its table is taken away):
 * past CONSUMER_RETRY_BUDGET_SECONDS the consumer gives up and the process exits non-zero, so the platform
 * restarts it; the restarted process, once the table is back, logs the change that could not be stored
 * (nothing was committed past it).
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const prefix = `giveup${randomUUID().slice(0, 8)}.`;
const { logger } = captureLogger('fatal');

let database: TestDatabase;
let bus: KafkaBus;
let child: ChildProcess | undefined;
let output = '';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function startChanges(port: number): Promise<{ exited: Promise<number | null> }> {
  const infra = testInfrastructure();
  const started = spawn(process.execPath, ['--conditions=@timetable/source', '--import', 'tsx', 'services/changes/src/main.ts'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      PORT: String(port),
      DATABASE_URL: database.connectionString,
      KAFKA_BROKERS: infra.kafkaBrokers.join(','),
      SCHEMA_REGISTRY_URL: infra.schemaRegistryUrl,
      KAFKA_TOPIC_PREFIX: prefix,
      CONSUMER_RETRY_BUDGET_SECONDS: '3',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = started;
  started.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  started.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => started.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (started.exitCode !== null) throw new Error(`changes exited while starting:\n${output}`);
    const response = await fetch(`http://127.0.0.1:${port}/ready`).catch(() => undefined);
    if (response?.ok) return { exited };
    if (Date.now() > deadline) throw new Error(`changes not ready:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function sql(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: database.connectionString });
  await client.connect();
  await client.query(statement);
  await client.end();
}

function aChange(): ChangeEvent {
  return {
    id: randomUUID(),
    entityType: 'room',
    entityId: randomUUID(),
    action: 'created',
    previousData: null,
    newData: { name: 'A 001' },
    changedFields: [],
    programId: null,
    semesterId: null,
    courseId: null,
    roomId: null,
    instructorId: null,
    createdAt: new Date().toISOString(),
    syncRunId: randomUUID(),
  };
}

beforeAll(async () => {
  database = await createTestDatabase();
  const infra = testInfrastructure();
  bus = new KafkaBus({ brokers: infra.kafkaBrokers, clientId: 'give-up-test', schemaRegistryUrl: infra.schemaRegistryUrl, topicPrefix: prefix, topics: ALL_TOPICS, logger });
  await bus.connect();
});

afterAll(async () => {
  child?.kill('SIGKILL');
  await bus?.disconnect();
  await database?.drop();
});

describe('a consumer whose handler keeps failing past the retry budget', () => {
  it('ends the process non-zero, and its restart handles the change once the dependency is back', async () => {
    const port = await freePort();
    const first = await startChanges(port);
    await sql('alter table changes.changes rename to changes_away');
    const change = aChange();
    await bus.publish([{ topic: topics.changes.name, key: `room:${change.entityId}`, value: change }]);

    expect(await first.exited).toBe(1);
    expect(output).toMatch(/consumer gave up/);

    await sql('alter table changes.changes_away rename to changes');
    await startChanges(port);
    const deadline = Date.now() + 60_000;
    let status = 0;
    while (status !== 200 && Date.now() < deadline) {
      status = (await fetch(`http://127.0.0.1:${port}/v1/timetable/changes/${change.id}`)).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(status).toBe(200);
  });
});
