import type { RecordingReceiver } from './recording-receiver.js';

/** What the fault rows need of a running system, in either mode. */
export interface SystemUnderFault {
  /** StarPlan base the system's sync reads (`<url>/__admin/churn` churns it). */
  upstreamBaseUrl: string;
  /** Origin of the public API (the gateway, or the embedded process's one port). */
  publicUrl: string;
  receiver: RecordingReceiver;
  api<T = unknown>(path: string, init?: RequestInit): Promise<{ status: number; body: T }>;
  /** A query on the database of one service (schema-qualified names: `sync.sync_runs`). */
  query<T>(service: string, text: string, params?: unknown[]): Promise<T[]>;
  /** Records put aside: messages in the dead-letter topics, or rows of the embedded mode's `sync.dead_letters`. */
  deadLetterCount(): Promise<number>;
}

/** A JSON call that keeps the status; an empty body is null. */
export async function callApi<T>(baseUrl: string, path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const response = await fetch(`${baseUrl}/v1/timetable${path}`, { ...init, signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
}

/** Registers a developer and a global webhook to the receiver; returns the key. */
export async function subscribeGlobally(system: Pick<SystemUnderFault, 'api' | 'receiver'>): Promise<string> {
  const registered = await system.api<{ data: { apiKey: string } }>('/developers/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `faults-${Date.now()}@example.edu` }),
  });
  const apiKey = registered.body.data.apiKey;
  const created = await system.api('/webhooks', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify({ url: system.receiver.urlFor('global'), secret: 'fault-matrix-secret-0123' }),
  });
  if (created.status !== 201) throw new Error(`could not create the global webhook: ${JSON.stringify(created.body)}`);
  return apiKey;
}
