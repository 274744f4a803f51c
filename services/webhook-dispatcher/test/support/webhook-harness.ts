import { randomBytes, randomUUID } from 'node:crypto';
import { topics, type ChangeEvent } from '@timetable/contracts';
import { InProcessBus } from '@timetable/events';
import { DeveloperIdentity } from '@timetable/http';
import { serveModule, type ServedModule } from '@timetable/service-kit';
import { captureLogger, createMigratedKnex } from '@timetable/testing';
import type { Knex } from '@timetable/db';
import { createWebhookService, webhookMigrations, WEBHOOKS_SCHEMA, type WebhookServiceDeps, type WebhookServiceModule } from '../../src/index.js';

// Responses are asserted field by field; a loose type keeps the tests readable.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export const START = new Date('2025-03-03T10:00:00.000Z');

/** A settable clock: tests move time instead of waiting for it. */
export class TestClock {
  current = new Date(START);
  readonly now = () => new Date(this.current);

  advance(seconds: number): void {
    this.current = new Date(this.current.getTime() + seconds * 1000);
  }
}

export interface Harness {
  knex: Knex;
  bus: InProcessBus;
  clock: TestClock;
  module: WebhookServiceModule;
  api: ServedModule;
  lines: () => Record<string, unknown>[];
  identity: DeveloperIdentity;
  /** WEBHOOK_SECRETS_KEY of this harness, shared by its replicas. */
  secretsKey: Buffer;
  /** Another dispatcher on the same database (a second replica). */
  replica(): Promise<WebhookServiceModule>;
  call(developerId: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json; text: string }>;
  publish(...changes: Partial<ChangeEvent>[]): Promise<ChangeEvent[]>;
  close(): Promise<void>;
}

/** Loopback receivers are what these tests deliver to; the default address rules would refuse them. */
export const LOOPBACK_ALLOWED = ['127.0.0.0/8', '::1/128'];

export async function startHarness(overrides: Partial<WebhookServiceDeps> = {}): Promise<Harness> {
  const store = await createMigratedKnex(WEBHOOKS_SCHEMA, webhookMigrations);
  const secretsKey = randomBytes(32);
  const { logger, lines } = captureLogger('info');
  const bus = new InProcessBus(logger);
  const clock = new TestClock();
  const identity = new DeveloperIdentity('test-identity-secret-0123456789');
  const modules: WebhookServiceModule[] = [];
  const build = async () => {
    const module = await createWebhookService({
      knex: store.knex, bus, logger, identity, intervalSeconds: 3600, retryDelaysSeconds: [60, 300, 900], timeoutMs: 2000,
      breaker: { minRequests: 1000, failurePercent: 70, openSeconds: 30 }, allowCidrs: LOOPBACK_ALLOWED, denyCidrs: [], secretsKey,
      hostConcurrency: 4, retentionDays: 30, maxPendingHours: 72, disableAfterDays: 5, maxWebhooksPerDeveloper: 25, now: clock.now,
      ...overrides,
    });
    modules.push(module);
    return module;
  };
  const module = await build();
  const api = await serveModule(module, { name: 'webhook-test', logger });
  return {
    knex: store.knex, bus, clock, module, api, lines, identity, secretsKey,
    replica: build,
    async call(developerId, method, path, body) {
      const headers: Record<string, string> = { ...identity.headersFor(developerId) };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${api.url}${path.startsWith('/internal') ? '' : '/v1/timetable'}${path}`, {
        method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, text, body: text ? JSON.parse(text) : undefined };
    },
    async publish(...partials) {
      const changes = partials.map((partial) => change(partial));
      await bus.publish(changes.map((value) => ({ topic: topics.changes.name, key: `${value.entityType}:${value.entityId}`, value })));
      return changes;
    },
    async close() {
      await api.close();
      // The first module stopped with its server; the replicas a test asked for stop here.
      for (const each of modules.slice(1)) await each.stop();
      await store.close();
    },
  };
}

export function change(partial: Partial<ChangeEvent> = {}): ChangeEvent {
  return {
    id: randomUUID(),
    entityType: 'course',
    entityId: randomUUID(),
    action: 'updated',
    previousData: { name: 'Mathematik 1', credits: 5 },
    newData: { name: 'Mathematik 1', credits: 6 },
    changedFields: ['credits'],
    programId: null,
    semesterId: null,
    courseId: null,
    roomId: null,
    instructorId: null,
    createdAt: '2025-03-03T09:59:00.000Z',
    syncRunId: randomUUID(),
    ...partial,
  };
}
