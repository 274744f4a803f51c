import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { courseIdOf } from '@timetable/sync/testing';
import { PROCESS_DEFINITIONS } from '../../src/service-definitions.js';
import { ChangeStream } from './support/change-stream.js';
import { eventually, sleep } from './support/eventually.js';
import { expectNothingLostOrDuplicated } from './support/expect-consistent.js';
import { startFaultSystem, type FaultSystem } from './support/fault-system.js';
import { distinct, startReadProbe } from './support/read-probe.js';

/**
 * The fault matrix of the distributed mode: each row runs a stream of upstream changes through the stack
 * (sync, catalog-api, changes, webhook-dispatcher, developer-auth, gateway as processes on private
 * PostgreSQL, Redis, Kafka and registry), injects its fault in the middle, ends it, and then checks that
 * nothing was lost or duplicated (support/expect-consistent.ts). The rows run in order on one stack.
 */
let system: FaultSystem;

beforeAll(async () => {
  system = await startFaultSystem();
}, 600_000);

afterAll(async () => {
  await system?.stop();
}, 180_000);

const READS = ['/programs', '/rooms', '/changes?limit=1'];
const SERVICES = PROCESS_DEFINITIONS.map((definition) => definition.name);

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(name))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

describe('Kafka stopped for a minute and restarted', () => {
  it('holds changes in the outbox, resumes every consumer from its offset, keeps serving reads, loses and duplicates nothing', async () => {
    const stream = await ChangeStream.begin(system);
    const probe = startReadProbe(system.stack.gatewayUrl, READS);
    const churning = stream.churn(8);
    await sleep(3_000);
    await system.infra.kafka.stop();
    await sleep(60_000);
    await system.infra.kafka.start();
    await churning;
    expect(distinct(await probe.stop())).toEqual(Object.fromEntries(READS.map((path) => [path, [200]])));
    await expectNothingLostOrDuplicated(system, stream);
  });
});

describe('the schema registry stopped for 60 s', () => {
  it('lets consumers wait (even ones restarted meanwhile) and commit nothing they could not decode; nothing is dead-lettered or lost', async () => {
    const stream = await ChangeStream.begin(system);
    const churning = stream.churn(8);
    await sleep(3_000);
    await system.infra.registry.stop();
    await sleep(2_000);
    // Restarted without a registry: their schema caches are empty, so every message waits for it.
    await system.stack.kill('changes');
    await system.stack.kill('catalog-api');
    await sleep(58_000);
    await system.infra.registry.start();
    await churning;
    await expectNothingLostOrDuplicated(system, stream);
  });
});

describe('PostgreSQL restarted', () => {
  it('answers 503 (never a crash) meanwhile, rolls back the run in flight, reconnects by itself, loses and duplicates nothing', async () => {
    const restartsBefore = Object.fromEntries(SERVICES.map((service) => [service, system.stack.process(service).restarts]));
    const stream = await ChangeStream.begin(system);
    const probe = startReadProbe(system.stack.gatewayUrl, READS);
    const churning = stream.churn(6);
    await sleep(4_000);
    await system.infra.postgres.stop();
    await sleep(10_000);
    const restartedAt = new Date();
    await system.infra.postgres.start();
    await churning;
    const seen = distinct(await probe.stop());
    for (const [path, statuses] of Object.entries(seen)) expect(statuses.every((status) => status === 200 || status === 503), `${path}: ${statuses.join(',')}`).toBe(true);
    await expectNothingLostOrDuplicated(system, stream);
    // The run the outage cut off left nothing behind (one transaction); a run after the restart succeeded.
    const after = await system.query<{ status: string }>('sync', 'select status from sync.sync_runs where started_at >= $1', [restartedAt]);
    expect(after.map((run) => run.status)).toContain('succeeded');
    for (const service of SERVICES) expect(system.stack.process(service).restarts, `${service} restarts`).toBe(restartsBefore[service]);
  });
});

describe('Redis stopped', () => {
  it('keeps public reads passing (the limit fails open, counted) and fresh (the cache falls back to the store), the gateway ready', async () => {
    const failuresBefore = await metric(system.stack.gatewayUrl, 'gateway_rate_limiter_failures_total');
    await system.infra.redis.stop();
    try {
      const stream = await ChangeStream.begin(system);
      const probe = startReadProbe(system.stack.gatewayUrl, READS);
      await stream.churn(4);
      // Checked while Redis is still away: the catalog must show the churn, so nothing was served from a stale cache.
      await expectNothingLostOrDuplicated(system, stream);
      expect(distinct(await probe.stop())).toEqual(Object.fromEntries(READS.map((path) => [path, [200]])));
      expect((await fetch(`${system.stack.gatewayUrl}/ready`)).status).toBe(200);
      expect(await metric(system.stack.gatewayUrl, 'gateway_rate_limiter_failures_total')).toBeGreaterThan(failuresBefore);
    } finally {
      await system.infra.redis.start();
    }
  });
});

describe('catalog-api stopped', () => {
  it('leaves the gateway ready and the change log answering, and its own routes answer 503 SERVICE_UNAVAILABLE', async () => {
    await system.stack.stopProcess('catalog-api');
    try {
      expect((await fetch(`${system.stack.gatewayUrl}/ready`)).status).toBe(200);
      expect((await system.api('/changes?limit=1')).status).toBe(200);
      expect((await system.api('/sync/status')).status).toBe(200);
      for (const path of ['/programs', '/week/current', '/rooms/free?from=2026-11-23T08:00:00Z&to=2026-11-23T10:00:00Z']) {
        const { status, body } = await system.api<{ error: { code: string } }>(path);
        expect(status, path).toBe(503);
        expect(body.error.code, path).toBe('SERVICE_UNAVAILABLE');
      }
    } finally {
      await system.stack.startProcess('catalog-api');
    }
  });
});

describe('the upstream answering garbage, and NUL and lone surrogates in names', () => {
  it('cleans the names, retries or fails only the garbled requests, keeps every run going, loses and duplicates nothing', async () => {
    // Not the first course: the cache row below renames that one.
    const course = (await cachedListing(system)).entries.at(-1)!.course;
    const stream = await ChangeStream.begin(system);
    const churning = stream.churn(4);
    await renameLecture(system, course.id, 'Ana\u0000lysis \ud800 3\u0007');
    // A few garbled lists, which the retries ride out, and every group feed garbled until cleared: those pairs fail.
    await misbehave(system, { kind: 'getles', failure: 'garbage', times: 2 });
    await misbehave(system, { kind: 'ical', failure: 'garbage' });
    const clearGarbage = () => fetch(`${system.stack.upstreamBaseUrl}/__admin/misbehave?kind=ical`, { method: 'DELETE' });
    try {
      const reported = await eventually('a run that reported the garbage', async () => {
        const [run] = await system.query<{ status: string }>('sync', "select status from sync.sync_runs where started_at >= $1 and status in ('partial', 'failed') limit 1", [stream.since]);
        return run?.status;
      });
      expect(['partial', 'failed']).toContain(reported);
    } finally {
      expect((await clearGarbage()).status).toBe(204);
    }
    await churning;
    await expectNothingLostOrDuplicated(system, stream);
    const courses = (await system.api<{ data: { id: string; name: string }[] }>('/courses')).body.data;
    expect(courses.find((candidate) => candidate.id === course.id)?.name).toBe('Analysis \ufffd 3');
    const [last] = await system.query<{ status: string }>('sync', 'select status from sync.sync_runs order by started_at desc limit 1');
    expect(last?.status, 'the run after the garbage').toBe('succeeded');
  });
});

describe('SIGKILL of each service in turn', () => {
  for (const service of SERVICES) {
    it(`${service}: the stack brings it back; no change record is lost or duplicated, retries keep their webhook-id`, async () => {
      const restarts = system.stack.process(service).restarts;
      const stream = await ChangeStream.begin(system);
      const churning = stream.churn(4);
      await sleep(2_500);
      await system.stack.kill(service);
      await churning;
      await system.stack.process(service).waitReady(120_000);
      expect(system.stack.process(service).restarts).toBe(restarts + 1);
      await expectNothingLostOrDuplicated(system, stream);
    });
  }
});

describe('SIGTERM of a dispatcher with a backlog of 500 deliveries', () => {
  it('stops claiming, finishes what is in flight within the grace period and releases the rest; every delivery arrives exactly once', async () => {
    const { apiKey, labels, ids } = await bulkWebhooks(system, 25);
    // A slow receiver: 4 attempts in flight to its host, each a second long, so the backlog builds up.
    system.receiver.delayMs = 1_000;
    try {
      const stream = await ChangeStream.begin(system);
      const backlog = async () => {
        const [row] = await system.query<{ n: number }>('webhook-dispatcher', "select count(*)::int as n from webhooks.deliveries where status = 'pending' and webhook_id = any($1)", [ids]);
        return row?.n ?? 0;
      };
      // Each churn gives every one of the 25 webhooks a delivery per change; churn until 500 are due.
      for (let round = 1; (await backlog()) < 500; round += 1) {
        expect(round, 'churns needed for a backlog of 500').toBeLessThanOrEqual(10);
        await stream.churn(1);
        const published = await stream.published();
        await eventually('the stream matched to the webhooks', async () => {
          const [row] = await system.query<{ n: number }>('webhook-dispatcher', 'select count(*)::int as n from webhooks.deliveries where webhook_id = $1', [ids[0]]);
          return (row?.n ?? 0) >= published ? true : undefined;
        });
      }
      // The stack's grace period is 15 s before a SIGKILL; exit code 0 means the drain finished within it.
      expect(await system.stack.process('webhook-dispatcher').stop()).toBe(0);
      // This test's own deliveries: a dispatcher SIGKILLed by an earlier test leaves its leases to expire.
      const [held] = await system.query<{ n: number }>(
        'webhook-dispatcher',
        "select count(*)::int as n from webhooks.deliveries where status = 'pending' and claimed_until > now() and webhook_id = any($1)",
        [ids],
      );
      expect(held?.n, 'deliveries still leased after the drain').toBe(0);
      await system.stack.startProcess('webhook-dispatcher');
      system.receiver.delayMs = 0;
      await expectNothingLostOrDuplicated(system, stream, ['global', ...labels]);
      // A clean drain finished or released every attempt, so none was sent twice (a crash may; SIGTERM must not).
      const sent = new Map<string, number>();
      for (const receipt of system.receiver.receipts.filter((candidate) => labels.some((label) => candidate.path === `/hooks/${label}`))) {
        const key = `${receipt.path} ${receipt.changeId}`;
        sent.set(key, (sent.get(key) ?? 0) + 1);
      }
      expect([...sent].filter(([, times]) => times > 1)).toEqual([]);
    } finally {
      system.receiver.delayMs = 0;
      for (const id of ids) await system.api(`/webhooks/${id}`, { method: 'DELETE', headers: { 'x-api-key': apiKey } });
    }
  });
});

describe('a consumer that gives up', () => {
  it('ends its process non-zero; the stack restarts it until its dependency is back; nothing is skipped', async () => {
    await system.stack.restart('changes', { CONSUMER_RETRY_BUDGET_SECONDS: '3' });
    const restarts = system.stack.process('changes').restarts;
    await system.query('changes', 'alter table changes.changes rename to changes_away');
    try {
      const stream = await ChangeStream.begin(system);
      await stream.churn(2);
      await eventually('changes to give up and be restarted', async () => (system.stack.process('changes').restarts > restarts ? true : undefined));
      await system.query('changes', 'alter table changes.changes_away rename to changes');
      await expectNothingLostOrDuplicated(system, stream);
    } finally {
      await system.query('changes', 'alter table if exists changes.changes_away rename to changes').catch(() => undefined);
      await system.stack.restart('changes', { CONSUMER_RETRY_BUDGET_SECONDS: '300' });
    }
  });
});

describe('a cache invalidation that fails after the catalog committed', () => {
  it('leaves stale reads for at most a minute', async () => {
    const listing = await cachedListing(system);
    const entry = listing.entries[0]!;
    // ISO-8859-1 only, as the upstream can send it (whatever the course is called now).
    const renamed = `Umbenannt ${Date.now()}`;
    // Redis keeps answering reads and writes, but refuses the version bump.
    system.infra.redis.cli('ACL', 'SETUSER', 'default', '-incr');
    try {
      const catalogApi = system.stack.process('catalog-api').url;
      const failuresBefore = await metric(catalogApi, 'catalog_cache_invalidation_failures_total');
      const stream = await ChangeStream.begin(system);
      await renameLecture(system, entry.course.id, renamed);
      await stream.published();
      await eventually('the bump to fail', async () => ((await metric(catalogApi, 'catalog_cache_invalidation_failures_total')) > failuresBefore ? true : undefined), 60_000);
      // The cached listing may be stale now, for at most the 60 s an entry lives.
      await eventually(
        'the renamed course in the cached listing',
        async () => ((await cachedListing(system, listing.path)).entries.some((candidate) => candidate.course.name === renamed) ? true : undefined),
        90_000,
      );
    } finally {
      system.infra.redis.cli('ACL', 'SETUSER', 'default', '+incr');
    }
  });
});

describe('a client rotating IPv6 addresses inside one /64', () => {
  it('has one rate budget for the whole /64', async () => {
    await system.stack.restart('gateway', { RATE_LIMITS: '5/1m', REDIS_KEY_PREFIX: `${system.stack.namespace}:ipv6:` });
    try {
      const from = async (address: string) =>
        (await fetch(`${system.stack.gatewayUrl}/v1/timetable/programs`, { headers: { 'X-Forwarded-For': address } })).status;
      const statuses: number[] = [];
      for (let host = 1; host <= 7; host += 1) statuses.push(await from(`2001:db8:77:1:${host.toString(16)}::${host}`));
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
      expect(await from('2001:db8:77:2::1')).toBe(200);
    } finally {
      await system.stack.restart('gateway', { RATE_LIMITS: '1000000/1s', REDIS_KEY_PREFIX: `${system.stack.namespace}:` });
    }
  });
});

/** `count` global webhooks of a second developer, each to its own path of the receiver (one host). */
async function bulkWebhooks(target: FaultSystem, count: number): Promise<{ apiKey: string; labels: string[]; ids: string[] }> {
  const registered = await target.api<{ data: { apiKey: string } }>('/developers/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `bulk-${Date.now()}@example.edu` }),
  });
  const apiKey = registered.body.data.apiKey;
  const labels = Array.from({ length: count }, (_, index) => `bulk-${index}`);
  const ids: string[] = [];
  for (const label of labels) {
    const created = await target.api<{ data: { id: string } }>('/webhooks', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ url: target.receiver.urlFor(label) }),
    });
    expect(created.status).toBe(201);
    ids.push(created.body.data.id);
  }
  return { apiKey, labels, ids };
}

interface ListingEntry {
  course: { id: string; name: string };
}

/** A semester's course listing, one of the routes served from the response cache. */
async function cachedListing(target: FaultSystem, path?: string): Promise<{ path: string; entries: ListingEntry[] }> {
  if (path) return { path, entries: (await target.api<{ data: ListingEntry[] }>(path)).body.data };
  const semesters = (await target.api<{ data: { id: string }[] }>('/semesters')).body.data;
  for (const semester of semesters) {
    const candidate = `/semesters/${semester.id}/courses`;
    const entries = (await target.api<{ data: ListingEntry[] }>(candidate)).body.data;
    if (entries.length > 0) return { path: candidate, entries };
  }
  throw new Error('no semester with courses');
}

/** Makes the simulator misbehave for requests of one kind (an `m` value or `ical`), `times` times or until cleared. */
async function misbehave(target: FaultSystem, behaviour: { kind: string; failure: string; times?: number }): Promise<void> {
  const response = await fetch(`${target.stack.upstreamBaseUrl}/__admin/misbehave`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(behaviour),
  });
  expect(response.status, await response.text()).toBe(204);
}

/** Renames the upstream lecture behind a course (its id is the UUIDv5 of the lecture id). */
async function renameLecture(target: FaultSystem, courseId: string, name: string): Promise<void> {
  const lectureId = Array.from({ length: 100_000 }, (_, id) => id).find((id) => courseIdOf(id) === courseId);
  expect(lectureId, `the lecture behind course ${courseId}`).toBeDefined();
  const response = await fetch(`${target.stack.upstreamBaseUrl}/__admin/change`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ op: 'renameLecture', args: { lectureId, name } }),
  });
  expect(response.status, await response.text()).toBe(200);
}
