import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKnex, type Knex } from '@timetable/db';
import { SYNC_CONNECTIONS_KEPT } from '@timetable/sync';
import { testInfrastructure } from '@timetable/testing';
import { verifyWebhookSignature } from '@timetable/webhook-dispatcher';
import { startStack, type RunningStack } from '../../../../scripts/stack/start-stack.js';
import { launchBrowser, PHONE } from '../browser/support/browser.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

/**
 * The distributed topology as separate processes on the real Kafka (with the registry), PostgreSQL and
 * Redis: a sync reaches the catalog, the change log and a webhook receiver, and a consumer process
 * killed with SIGKILL and restarted loses and duplicates nothing.
 */
const SECRET = 'distributed-stack-test-secret';
const STATISTICS_TYPES = { semesters: 'semester', courses: 'course', rooms: 'room', instructors: 'instructor', events: 'event' } as const;

let stack: RunningStack;
let receiver: WebhookReceiver;
let syncStore: Knex;
let churnSeed = 100;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  stack = await startStack({
    infrastructure: testInfrastructure(),
    ephemeral: true,
    // The receiver listens on loopback, which the address rules refuse unless listed.
    env: { LOG_LEVEL: 'info', SYNC_INTERVAL_SECONDS: '2', DELIVERY_INTERVAL_SECONDS: '1', RATE_LIMITS: '1000000/1s', WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8' },
  });
  // Named apart from the sync's own connections, which a test below counts.
  syncStore = createKnex({ connectionString: stack.databaseUrls.sync ?? '', schema: 'sync', poolMax: 2, applicationName: 'distributed-stack-test' });
}, 300_000);

afterAll(async () => {
  await syncStore?.destroy();
  await stack?.stop();
  await receiver?.close();
}, 120_000);

async function api<T>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const response = await fetch(`${stack.gatewayUrl}/v1/timetable${path}`, init);
  return { status: response.status, body: (await response.json()) as T };
}

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 150_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** What sync recorded since `since`: the number of changes its runs published, once the outbox is empty. */
async function changesPublishedSince(since: Date): Promise<number | undefined> {
  const [{ total }] = (await syncStore('sync_runs')
    .where('started_at', '>=', since)
    .select(syncStore.raw('coalesce(sum(created_count + updated_count + deleted_count), 0)::int as total'))) as [{ total: number }];
  const [{ backlog }] = (await syncStore('outbox').count({ backlog: '*' })) as [{ backlog: number }];
  return total > 0 && Number(backlog) === 0 ? total : undefined;
}

async function snapshotCounts(): Promise<Record<string, number>> {
  const rows = (await syncStore('snapshot_entities').groupBy('entity_type').select('entity_type').count({ n: '*' })) as { entity_type: string; n: number }[];
  return Object.fromEntries(rows.map((row) => [row.entity_type, Number(row.n)]));
}

/** The catalog agrees with sync's snapshot on every counted kind. */
async function catalogMatchesSnapshot(): Promise<true | undefined> {
  const [{ body }, snapshot] = await Promise.all([api<{ data: Record<string, number> }>('/statistics'), snapshotCounts()]);
  const same = Object.entries(STATISTICS_TYPES).every(([field, type]) => body.data[field] === (snapshot[type] ?? 0));
  return same ? true : undefined;
}

async function changeIdsSince(since: Date): Promise<string[]> {
  const { body } = await api<{ data: { id: string }[] }>(`/changes?since=${encodeURIComponent(since.toISOString())}&limit=500`);
  return body.data.map((change) => change.id);
}

function deliveredIds(ids: string[]): string[] {
  const wanted = new Set(ids);
  return receiver.deliveries.map((delivery) => delivery.body.id).filter((id) => wanted.has(id));
}

/**
 * Churns the simulator once no sync run that started earlier is still in flight, so every change it causes
 * comes from a run started at or after the returned instant (and is counted by changesPublishedSince).
 */
async function churn(): Promise<Date> {
  const since = new Date();
  await eventually('a sync run to start', async () => ((await syncStore('sync_runs').where('started_at', '>=', since).first()) ? true : undefined));
  churnSeed += 1;
  const response = await fetch(`${stack.upstreamBaseUrl}/__admin/churn`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ seed: churnSeed, count: 5 }),
  });
  expect(response.status).toBe(200);
  return since;
}

/** After a churn: every change sync published since then is in the catalog, the log and at the receiver exactly once. */
async function expectExactlyOnce(since: Date): Promise<void> {
  const published = await eventually('sync to publish the churn', () => changesPublishedSince(since));
  const ids = await eventually('the change log', async () => {
    const found = await changeIdsSince(since);
    return found.length >= published ? found : undefined;
  });
  await eventually('the deliveries', async () => (new Set(deliveredIds(ids)).size >= ids.length ? true : undefined));
  await eventually('the catalog', catalogMatchesSnapshot);
  // A late duplicate would arrive within a few delivery cycles.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const settled = await changeIdsSince(since);
  expect(settled).toHaveLength(published);
  expect(new Set(settled).size).toBe(published);
  expect(deliveredIds(settled).sort()).toEqual([...settled].sort());
}

describe('distributed stack (one process per service, Kafka + registry, PostgreSQL, Redis)', () => {
  it('mirrors the first sync into the catalog and the change log', async () => {
    await eventually('the catalog', catalogMatchesSnapshot);
    const { body } = await api<{ data: Record<string, number> }>('/statistics');
    expect(body.data.events).toBeGreaterThan(0);
    const changes = await api<{ data: { id: string; syncRunId?: string }[] }>('/changes?limit=5');
    expect(changes.body.data).toHaveLength(5);
    const ready = await fetch(`${stack.gatewayUrl}/ready`);
    expect(ready.status).toBe(200);
  });

  it('serves the page at / through the distributed gateway, where a student picks a course and sees its week', async () => {
    const { body } = await api<{ data: { courses: { name: string; code: string }[] } }>('/search?q=ma&type=course');
    const course = body.data.courses[0]!;
    const browser = await launchBrowser();
    try {
      const { page, problems } = await browser.open(PHONE);
      await page.goto(`${stack.gatewayUrl}/`);
      await page.getByLabel('Find by name').fill(course.name);
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByRole('button', { name: `Add Course: ${course.name} (${course.code})`, exact: true }).click();
      const status = page.locator('#week-status', { hasText: / in week / });
      await status.waitFor();
      const [, count, week] = /^(\d+) lectures? in week (\S+)\.$/.exec((await status.textContent()) ?? '') ?? [];
      expect(week).toBe((await api<{ week: string }>('/week/current')).body.week);
      expect(await page.locator('#week-days .occurrence').count()).toBe(Number(count));
      const feed = await fetch((await page.getByLabel('Feed address, for calendar apps that ask for one').inputValue()));
      expect(feed.status).toBe(200);
      expect(await feed.text()).toContain('BEGIN:VCALENDAR');
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it("opens the sync's kept store connections at start, so its runs find them open", async () => {
    await eventually('the sync\'s first run', catalogMatchesSnapshot);
    // backend_start is PostgreSQL's clock, started_at the sync's: both this machine's.
    const { rows } = await syncStore.raw<{ rows: { predating: number }[] }>(
      `select count(*) filter (where backend_start < (select min(started_at) from sync_runs))::int as predating
         from pg_stat_activity where datname = current_database() and application_name = 'timetable-sync'`,
    );
    // A connection opened beside the kept ones (a read of the sync's routes during a run) may outlive one of
    // them in the pool, so the count allows for one. A sync that opened none at start would have two at most
    // from before its first run: its migration's, and one for the run's lock while the relay polled.
    expect(rows[0]!.predating).toBeGreaterThanOrEqual(SYNC_CONNECTIONS_KEPT - 1);
  });

  it('delivers a churned change, signed, to a global webhook', async () => {
    const registered = await api<{ data: { apiKey: string } }>('/developers/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `stack-${Date.now()}@example.edu` }),
    });
    expect(registered.status).toBe(201);
    const created = await api<{ data: { id: string } }>('/webhooks', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': registered.body.data.apiKey },
      body: JSON.stringify({ url: receiver.url, secret: SECRET }),
    });
    expect(created.status).toBe(201);
    await expectExactlyOnce(await churn());
    const delivery = receiver.deliveries.at(-1);
    expect(delivery && verifyWebhookSignature(delivery.rawBody, { timestamp: delivery.headers.timestamp, signature: delivery.headers.signature }, SECRET)).toBe(true);
    expect(delivery?.body.event).toMatch(/^\w+\.(created|updated|deleted)$/);
  }, 240_000);

  for (const service of ['catalog-api', 'changes', 'webhook-dispatcher']) {
    it(`loses and duplicates nothing when ${service} is killed, and the stack brings it back by itself`, async () => {
      const restartsBefore = stack.process(service).restarts;
      await stack.kill(service);
      const since = await churn();
      await eventually('sync to publish the churn', () => changesPublishedSince(since));
      await stack.process(service).waitReady(120_000);
      expect(stack.process(service).restarts).toBe(restartsBefore + 1);
      await expectExactlyOnce(since);
    }, 300_000);
  }
});
