import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topics, type UsageEvent } from '@timetable/contracts';
import type { Knex } from '@timetable/db';
import { InProcessBus } from '@timetable/events';
import { DeveloperIdentity } from '@timetable/http';
import { captureLogger, createMigratedKnex } from '@timetable/testing';
import { createDeveloperAuthService, DEVELOPER_AUTH_SCHEMA, developerAuthMigrations, type DeveloperAuthModule } from '../src/index.js';

/** Usage events older than 90 days are deleted by the periodic job; a clock moved forward shows it. */
const DAY_MS = 86_400_000;
const { logger } = captureLogger('fatal');
const bus = new InProcessBus(logger);
const clock = { now: new Date('2026-01-01T00:00:00.000Z') };
let knex: Knex;
let closeDatabase: () => Promise<void>;
let service: DeveloperAuthModule;

beforeAll(async () => {
  ({ knex, close: closeDatabase } = await createMigratedKnex(DEVELOPER_AUTH_SCHEMA, developerAuthMigrations));
  service = await createDeveloperAuthService({
    knex, bus, logger, identity: new DeveloperIdentity('an-internal-identity-secret-for-tests'),
    webhookCounter: { countFor: () => Promise.resolve(0) }, now: () => clock.now,
  });
  await service.start();
});
afterAll(async () => {
  await service.stop();
  await closeDatabase();
});

function usage(occurredAt: Date): UsageEvent {
  return { id: randomUUID(), developerId: randomUUID(), endpoint: 'GET /v1/timetable/developers/me', statusCode: 200, occurredAt: occurredAt.toISOString() };
}

describe('usage retention', () => {
  it('deletes events older than 90 days and keeps newer ones', async () => {
    const daysAgo = (days: number) => new Date(clock.now.getTime() - days * DAY_MS);
    const events = [usage(daysAgo(200)), usage(daysAgo(80)), usage(daysAgo(1))];
    await bus.publish(events.map((event) => ({ topic: topics.usage.name, key: event.developerId, value: event })));
    const ids = async () => ((await knex('usage_events').select('id')) as { id: string }[]).map((row) => row.id).sort();

    expect(await service.deleteExpiredUsage()).toBe(1);
    expect(await ids()).toEqual([events[1]!.id, events[2]!.id].sort());

    clock.now = new Date(clock.now.getTime() + 9 * DAY_MS);
    expect(await service.deleteExpiredUsage()).toBe(0);

    clock.now = new Date(clock.now.getTime() + 2 * DAY_MS);
    expect(await service.deleteExpiredUsage()).toBe(1);
    expect(await ids()).toEqual([events[2]!.id]);
  });

  it('runs by itself: a service that starts deletes what has expired, without being asked', async () => {
    const expired = usage(new Date(clock.now.getTime() - 120 * DAY_MS));
    await bus.publish([{ topic: topics.usage.name, key: expired.developerId, value: expired }]);
    expect(await knex('usage_events').where('id', expired.id)).toHaveLength(1);
    const second = await createDeveloperAuthService({
      knex, bus: new InProcessBus(logger), logger, identity: new DeveloperIdentity('an-internal-identity-secret-for-tests'),
      webhookCounter: { countFor: () => Promise.resolve(0) }, now: () => clock.now,
    });
    await second.start();
    try {
      await expect.poll(async () => (await knex('usage_events').where('id', expired.id)).length, { timeout: 10_000 }).toBe(0);
    } finally {
      await second.stop();
    }
  });
});
