import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, startSimulator, type RunningSimulator, type Simulator } from '@timetable/starplan-sim';
import { roomIdOf } from '@timetable/sync/testing';
import { testInfrastructure } from '@timetable/testing';
import { databaseNameOf, deleteTopics, dropDatabases } from '../../../../scripts/stack/stack-resources.js';
import { repoRoot } from '../../../../scripts/stack/stack-process.js';
import { STACK_SERVICES } from '../../../../scripts/stack/stack-topology.js';

/**
 * `npm run stack` against an upstream of the operator's choosing: UPSTREAM_BASE_URL names a simulator started
 * here with another seed than the stack's own would use, and the gateway serves that simulator's university.
 */
const SEED = 7;
const namespace = `external${process.pid}`;
let upstream: RunningSimulator;
let stack: ChildProcess;
let output = '';
let gatewayUrl: string;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

function waitForLine(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm run stack did not print ${pattern} in time:\n${output}`)), timeoutMs);
    const look = () => {
      const match = pattern.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    };
    stack.stdout?.on('data', look);
    stack.once('exit', (code) => reject(new Error(`npm run stack exited with ${code}:\n${output}`)));
    look();
  });
}

/** The rooms through the gateway, as `id|name`. */
async function servedRooms(): Promise<string[]> {
  const response = await fetch(`${gatewayUrl}/v1/timetable/rooms`);
  expect(response.status).toBe(200);
  const body = (await response.json()) as { data: { id: string; name: string }[] };
  return body.data.map((room) => `${room.id}|${room.name}`).sort();
}

/** A simulator's rooms as the catalog lists them (the name is the upstream shortname). */
const roomsOf = (simulator: Simulator) => [...simulator.model.rooms.values()].map((room) => `${roomIdOf(room.id)}|${room.shortname}`).sort();

beforeAll(async () => {
  upstream = await startSimulator({ seed: SEED });
  const infra = testInfrastructure();
  stack = spawn(process.execPath, ['--conditions=@timetable/source', '--import', 'tsx', 'scripts/stack/main.ts'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      DATABASE_URL: infra.databaseUrl,
      REDIS_URL: infra.redisUrl,
      KAFKA_BROKERS: infra.kafkaBrokers.join(','),
      SCHEMA_REGISTRY_URL: infra.schemaRegistryUrl,
      UPSTREAM_BASE_URL: upstream.url,
      STACK_NAMESPACE: namespace,
      PORT: String(await freePort()),
      SYNC_INTERVAL_SECONDS: '2',
      RATE_LIMITS: '1000000/1s',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  stack.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  stack.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  gatewayUrl = (await waitForLine(/gateway ready: (\S+)/, 240_000))[1]!;
}, 300_000);

afterAll(async () => {
  if (stack && stack.exitCode === null) {
    const exited = new Promise((resolve) => stack.once('exit', resolve));
    stack.kill('SIGTERM');
    await exited;
  }
  await upstream?.stop();
  const infra = testInfrastructure();
  await dropDatabases(infra.databaseUrl, STACK_SERVICES.map((service) => databaseNameOf(namespace, service.name)));
  await deleteTopics(infra.kafkaBrokers, `${namespace}.`).catch(() => undefined);
}, 120_000);

describe('npm run stack with UPSTREAM_BASE_URL', () => {
  it('starts no simulator of its own and points sync at the given upstream', () => {
    expect(output).toContain(`upstream: ${upstream.url}`);
    expect(output).not.toMatch(/^\[stack\] simulator\s/m);
  });

  it("serves that upstream's university through the gateway", async () => {
    const expected = roomsOf(upstream.simulator);
    // The stack's own simulator (seed 1) would have served another university: the check can tell them apart.
    expect(roomsOf(createSimulator({ seed: 1 }))).not.toEqual(expected);
    // The stack is up once sync's first run is published; the catalog projects it moments later.
    const deadline = Date.now() + 60_000;
    let served = await servedRooms();
    while (JSON.stringify(served) !== JSON.stringify(expected) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      served = await servedRooms();
    }
    expect(served).toEqual(expected);
  });

  it('stops every process on SIGTERM and exits 0', async () => {
    const exited = new Promise<number | null>((resolve) => stack.once('exit', resolve));
    stack.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
