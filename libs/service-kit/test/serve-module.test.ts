import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Router } from 'express';
import { describe, expect, it } from 'vitest';
import type { ServiceModule } from '@timetable/http';
import { captureLogger } from '@timetable/testing';
import { serveModule } from '../src/index.js';

/** A module that records its starts and stops and answers one public and one internal route. */
function fakeModule(overrides: Partial<ServiceModule> = {}) {
  const events: string[] = [];
  const routes = Router();
  routes.get('/hello', (_req, res) => void res.json({ data: 'hello' }));
  const internalRoutes = Router();
  internalRoutes.get('/internal/ping', (_req, res) => void res.json({ pong: true }));
  const module: ServiceModule = {
    name: 'fake',
    routes,
    internalRoutes,
    readiness: [{ name: 'fake-check', check: () => Promise.resolve(events.includes('start')) }],
    start: () => {
      events.push('start');
      return Promise.resolve();
    },
    stop: () => {
      events.push('stop');
      return Promise.resolve();
    },
    ...overrides,
  };
  return { module, events };
}

describe('serveModule', () => {
  it('serves public routes under /v1/timetable, internal routes beside them and readiness, with the module started', async () => {
    const { module, events } = fakeModule();
    const served = await serveModule(module, { name: 'fake', logger: captureLogger('warn').logger });
    try {
      expect(served.url).toBe(`http://127.0.0.1:${served.port}`);
      expect(events).toEqual(['start']);
      expect(await (await fetch(`${served.url}/v1/timetable/hello`)).json()).toEqual({ data: 'hello' });
      expect(await (await fetch(`${served.url}/internal/ping`)).json()).toEqual({ pong: true });
      expect((await fetch(`${served.url}/ready`)).status).toBe(200);
      expect((await fetch(`${served.url}/v1/timetable/missing`)).status).toBe(404);
    } finally {
      await served.close();
    }
    expect(events).toEqual(['start', 'stop']);
    await expect(fetch(`${served.url}/health`)).rejects.toThrow();
  });

  it('leaves a module it was told not to start alone, serving its routes only', async () => {
    const { module, events } = fakeModule();
    const served = await serveModule(module, { name: 'fake', logger: captureLogger('warn').logger, startModule: false });
    expect((await fetch(`${served.url}/v1/timetable/hello`)).status).toBe(200);
    await served.close();
    expect(events).toEqual([]);
  });

  it('stops the module again when the port cannot be opened', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { module, events } = fakeModule();
    try {
      const port = (taken.address() as AddressInfo).port;
      await expect(serveModule(module, { name: 'fake', logger: captureLogger('warn').logger, port })).rejects.toThrow(/EADDRINUSE/);
      expect(events).toEqual(['start', 'stop']);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('closes the server even when the module fails to stop, then reports the failure', async () => {
    const { module } = fakeModule({ stop: () => Promise.reject(new Error('stuck')) });
    const served = await serveModule(module, { name: 'fake', logger: captureLogger('warn').logger });
    await expect(served.close()).rejects.toThrow('stuck');
    expect(served.server.listening).toBe(false);
  });
});
