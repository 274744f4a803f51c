import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allApiRoutes, webhooksApi } from '@timetable/contracts';
import { InProcessBus, type EventBus } from '@timetable/events';
import { createLogger } from '@timetable/observability';
import { EndpointPatterns } from '../src/features/usage/endpoint-patterns.js';
import { DEVELOPER_ID, startTestGateway, VALID_KEY, type TestGateway } from './support/test-gateway.js';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(() => gateway.close());

async function settle() {
  await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('usage recording', () => {
  it('publishes one event per authenticated developer request with the route pattern and status', async () => {
    gateway.usage.length = 0;
    const id = '00000000-0000-4000-8000-0000000000aa';
    await fetch(`${gateway.api}/webhooks/${id}`, { headers: { 'X-API-Key': VALID_KEY } });
    await fetch(`${gateway.api}/webhooks/${id}/deliveries?page=2`, { headers: { 'X-API-Key': VALID_KEY } });
    await fetch(`${gateway.api}/developers/me`, { headers: { 'X-API-Key': VALID_KEY } });
    await settle();
    expect(gateway.usage.map(({ endpoint, statusCode }) => ({ endpoint, statusCode }))).toEqual([
      { endpoint: 'GET /v1/timetable/webhooks/:id', statusCode: 404 },
      { endpoint: 'GET /v1/timetable/webhooks/:id/deliveries', statusCode: 200 },
      { endpoint: 'GET /v1/timetable/developers/me', statusCode: 200 },
    ]);
    for (const event of gateway.usage) {
      expect(event.developerId).toBe(DEVELOPER_ID);
      expect(event.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(Date.parse(event.occurredAt)).not.toBeNaN();
    }
  });

  it('counts nothing for anonymous reads, register, or rejected keys', async () => {
    gateway.usage.length = 0;
    await fetch(`${gateway.api}/programs`);
    await fetch(`${gateway.api}/developers/me`);
    await fetch(`${gateway.api}/developers/me`, { headers: { 'X-API-Key': 'spk_unknown' } });
    await fetch(`${gateway.api}/developers/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'b@example.edu' }),
    });
    await settle();
    expect(gateway.usage).toEqual([]);
  });
});

describe('a failing or hanging event bus', () => {
  it('neither delays nor fails the response, and logs a failure', async () => {
    const quietBus = new InProcessBus(createLogger({ name: 'test', level: 'silent' }));
    const failing: EventBus = {
      connect: () => quietBus.connect(),
      disconnect: () => quietBus.disconnect(),
      isHealthy: () => false,
      subscribe: (options) => quietBus.subscribe(options),
      publish: () => Promise.reject(new Error('kafka down')),
    };
    const hanging: EventBus = { ...failing, publish: () => new Promise<void>(() => undefined) };
    for (const bus of [failing, hanging]) {
      const isolated = await startTestGateway({ bus });
      try {
        const response = await fetch(`${isolated.api}/developers/me`, { headers: { 'X-API-Key': VALID_KEY } });
        expect(response.status).toBe(200);
        await settle();
        const logged = isolated.logLines().some((line) => line.msg === 'usage event not published');
        expect(logged).toBe(bus === failing);
      } finally {
        await isolated.close();
      }
    }
  });
});

describe('endpoint patterns', () => {
  const patterns = new EndpointPatterns([
    { method: 'get', path: '/developers/{id}', summary: '', tag: 't', service: 'developer-auth', auth: true, responses: {} },
    { method: 'get', path: '/developers/me', summary: '', tag: 't', service: 'developer-auth', auth: true, responses: {} },
    { method: 'post', path: '/webhooks/{id}/test', summary: '', tag: 't', service: 'developer-auth', auth: true, responses: {} },
  ]);

  it('prefers the most literal documented route and maps {param} to :param', () => {
    expect(patterns.match('GET', '/developers/me')).toBe('/developers/me');
    expect(patterns.match('GET', '/developers/42')).toBe('/developers/:id');
    expect(patterns.match('POST', '/webhooks/abc/test/')).toBe('/webhooks/:id/test');
    expect(patterns.match('GET', '/webhooks/abc/test')).toBeNull();
  });

  it('covers every documented webhook route, the recovery routes included', () => {
    const documented = new EndpointPatterns(Object.values(webhooksApi));
    const id = '00000000-0000-4000-8000-0000000000aa';
    expect(documented.match('POST', `/webhooks/${id}/deliveries/${id}/redeliver`)).toBe('/webhooks/:id/deliveries/:deliveryId/redeliver');
    expect(documented.match('POST', `/webhooks/${id}/recover`)).toBe('/webhooks/:id/recover');
    expect(documented.match('GET', `/webhooks/${id}/deliveries`)).toBe('/webhooks/:id/deliveries');
  });
});

describe('endpoint patterns of the published routes', () => {
  const patterns = new EndpointPatterns(allApiRoutes);

  it('keep /rooms/free and the personal feed apart from the routes with an id in the same place', () => {
    expect(patterns.match('GET', '/rooms/free')).toBe('/rooms/free');
    expect(patterns.match('GET', '/rooms/6f1c1f55-5f4a-4a57-9d0e-7d2b2f0e0a01')).toBe('/rooms/:id');
    expect(patterns.match('GET', '/rooms/free/schedule')).toBe('/rooms/:id/schedule');
    expect(patterns.match('GET', '/ical')).toBe('/ical');
    expect(patterns.match('GET', '/ical/abc')).toBe('/ical/:semesterId');
    expect(patterns.match('GET', '/ical/abc/url')).toBe('/ical/:semesterId/url');
  });
});
