/** bench:e2e talking to the running stack: its public API through the gateway, and sync's own run log. */
import pg from 'pg';
import type { RunningStack } from '../../scripts/stack/start-stack.js';
import { sleep } from './interrupt.js';

export async function api<T>(stack: RunningStack, route: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const response = await fetch(`${stack.gatewayUrl}/v1/timetable${route}`, { ...init, signal: AbortSignal.timeout(30_000) });
  return { status: response.status, body: (await response.json()) as T };
}

/**
 * The stack hands its gateway a port it picked at the start and binds it last, so on a busy machine another
 * program can hold that port meanwhile and answer the readiness probe. Only our gateway reaches our sync,
 * whose status names our simulator: wait until the gateway's URL says so.
 */
export async function waitForOwnGateway(stack: RunningStack, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const baseUrl = await api<{ data?: { baseUrl?: string } }>(stack, '/sync/status').then(
      ({ status, body }) => (status === 200 ? body.data?.baseUrl : undefined),
      () => undefined,
    );
    if (baseUrl === stack.upstreamBaseUrl && stack.process('gateway').running) return;
    if (Date.now() > deadline) throw new Error(`${stack.gatewayUrl} does not answer for this stack's gateway (last: ${String(baseUrl)})\n${stack.process('gateway').tail()}`);
    await sleep(250);
  }
}

/** When sync detected a change (the change log's createdAt, the end of the run's fetch and diff). */
export async function detectedAt(stack: RunningStack, changeId: string): Promise<number | undefined> {
  for (let attempt = 0; attempt < 40; attempt += 1) {
    const { status, body } = await api<{ data?: { createdAt: string } }>(stack, `/changes/${changeId}`);
    if (status === 200 && body.data) return Date.parse(body.data.createdAt);
    await sleep(250);
  }
  return undefined;
}

export interface SyncRun {
  startedAt: number;
  finishedAt: number;
}

/** sync's runs since an instant, from its own database (the bench's only look behind the API). */
export async function syncRunsSince(stack: RunningStack, since: number): Promise<SyncRun[]> {
  const client = new pg.Client({ connectionString: stack.databaseUrls.sync });
  await client.connect();
  try {
    const { rows } = await client.query<{ started_at: Date; finished_at: Date }>(
      'select started_at, finished_at from sync.sync_runs where started_at >= $1 order by started_at',
      [new Date(since)],
    );
    return rows.map((row) => ({ startedAt: row.started_at.getTime(), finishedAt: row.finished_at.getTime() }));
  } finally {
    await client.end();
  }
}
