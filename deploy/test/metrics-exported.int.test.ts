import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSystem } from '@timetable/standalone';
import { startEmbeddedOnTestDatabase, type EmbeddedOnTestDatabase } from '../../services/standalone/test/support/embedded-on-test-database.js';
import { alertExpressions, dashboardExpressions, readAlertRules } from './support/observability-queries.js';
import { exposedMetricNames, metricNamesIn } from './support/promql-metric-names.js';

const FIRST_SYNC_TIMEOUT_MS = 60_000;

let embedded: EmbeddedOnTestDatabase;
let system: RunningSystem;

/** Every service shares one registry in the embedded mode, so one /metrics shows what all of them export. */
beforeAll(async () => {
  embedded = await startEmbeddedOnTestDatabase({ SYNC_INTERVAL_SECONDS: '86400' });
  system = embedded.system;
  await waitForFirstSync(system.url);
});

afterAll(async () => {
  await embedded?.stop();
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
