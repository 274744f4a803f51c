import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testInfrastructure } from '@timetable/testing';
import { startStack, type RunningStack } from '../../../../scripts/stack/start-stack.js';

/**
 * Two gateway processes in front of the same services and one Redis: the rate budget of a client and the
 * validity of a key are the same whichever replica a request reaches.
 */
let stack: RunningStack;
let gateways: string[];

beforeAll(async () => {
  stack = await startStack({
    infrastructure: testInfrastructure(),
    ephemeral: true,
    replicas: 2,
    env: { RATE_LIMITS: '6/1m,1000/1h', SYNC_INTERVAL_SECONDS: '3600' },
  });
  gateways = stack.processes.filter((process) => process.name.startsWith('gateway')).map((process) => process.url);
}, 300_000);

afterAll(() => stack?.stop(), 120_000);

function call(gateway: string, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${gateway}/v1/timetable${path}`, init);
}

describe('two gateway processes sharing one Redis', () => {
  it('runs two gateway processes', () => {
    expect(gateways).toHaveLength(2);
    expect(new Set(gateways).size).toBe(2);
  });

  it('share one rate budget per client: the tier allows 6 reads in all, then both answer 429', async () => {
    const statuses: number[] = [];
    for (let request = 0; request < 8; request += 1) {
      statuses.push((await call(gateways[request % 2]!, '/programs')).status);
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(6);
    expect(statuses.slice(6)).toEqual([429, 429]);
    const denied = await call(gateways[1]!, '/statistics');
    expect(denied.status).toBe(429);
    expect(Number(denied.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('see a regenerated key as invalid at once, and a deactivated account on the other replica too', async () => {
    const [first, second] = gateways as [string, string];
    const registered = await call(first, '/developers/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `replicas-${Date.now()}@example.edu` }),
    });
    expect(registered.status).toBe(201);
    const oldKey = ((await registered.json()) as { data: { apiKey: string } }).data.apiKey;
    expect((await call(second, '/developers/me', { headers: { 'x-api-key': oldKey } })).status).toBe(200);

    const rotated = await call(first, '/developers/regenerate-key', { method: 'POST', headers: { 'x-api-key': oldKey } });
    expect(rotated.status).toBe(200);
    const newKey = ((await rotated.json()) as { data: { apiKey: string } }).data.apiKey;
    expect((await call(second, '/developers/me', { headers: { 'x-api-key': oldKey } })).status).toBe(401);
    expect((await call(second, '/developers/me', { headers: { 'x-api-key': newKey } })).status).toBe(200);

    expect((await call(second, '/developers/deactivate', { method: 'POST', headers: { 'x-api-key': newKey } })).status).toBe(200);
    const afterDeactivation = await call(first, '/developers/me', { headers: { 'x-api-key': newKey } });
    expect(afterDeactivation.status).toBe(401);
    expect(await afterDeactivation.json()).toMatchObject({ error: { code: 'UNAUTHORIZED', message: 'Invalid or revoked API key' } });
  });
});
