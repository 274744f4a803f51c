import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStandaloneConfig, startEmbeddedSystem, type RunningSystem } from '@timetable/standalone';
import { captureLogger, createTestDatabase, type TestDatabase } from '@timetable/testing';
import { alertExpressions, dashboardExpressions, readAlertRules } from './support/observability-queries.js';
import { exposedMetricNames, metricNamesIn } from './support/promql-metric-names.js';

const FIRST_SYNC_TIMEOUT_MS = 60_000;

let database: TestDatabase;
let system: RunningSystem;

/** Every service shares one registry in the embedded mode, so one /metrics shows what all of them export. */
beforeAll(async () => {
  database = await createTestDatabase();
  const config = loadStandaloneConfig({ PORT: '0', DATABASE_URL: database.connectionString, SYNC_INTERVAL_SECONDS: '86400', LOG_LEVEL: 'fatal' });
  system = await startEmbeddedSystem(config, captureLogger('fatal').logger);
  await waitForFirstSync(system.url);
});

afterAll(async () => {
  await system?.stop();
  await database?.drop();
});

async function waitForFirstSync(baseUrl: string): Promise<void> {
  const deadline = Date.now() + FIRST_SYNC_TIMEOUT_MS;
  for (;;) {
    const response = await fetch(`${baseUrl}/v1/timetable/sync/status`).catch(() => undefined);
    const body = response?.ok ? ((await response.json()) as { data?: { lastFetchedAt?: string | null } }) : undefined;
    if (body?.data?.lastFetchedAt) return;
    if (Date.now() > deadline) throw new Error(`first sync not done within ${FIRST_SYNC_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('metrics used by the dashboard and the alert rules', () => {
  it('are all exported by the running services', async () => {
    const response = await fetch(`${system.url}/metrics`);
    expect(response.status).toBe(200);
    const exported = exposedMetricNames(await response.text());
    const used = new Set([...alertExpressions(readAlertRules()), ...dashboardExpressions()].flatMap(metricNamesIn));
    expect(used.size).toBeGreaterThan(10);
    expect([...used].filter((name) => !exported.has(name)).sort()).toEqual([]);
  });
});
