import { describe, expect, it } from 'vitest';
import { InProcessBus } from '@timetable/events';
import { captureLogger } from '@timetable/testing';
import { buildContext, isAppModule, serveApp, type AppModule } from '../src/index.js';

describe('buildContext', () => {
  it('hands a store-less definition a context whose store throws when read', () => {
    const { logger } = captureLogger('warn');
    const context = buildContext('edge', { logger, bus: new InProcessBus(logger), onClose: () => undefined, config: { A: 1 }, overrides: {}, knex: undefined });
    expect(context.config).toEqual({ A: 1 });
    expect(() => context.knex).toThrow('edge declares no store');
  });
});

describe('serveApp', () => {
  it('serves an app module as it is, started before the port opens and stopped with the server', async () => {
    const events: string[] = [];
    const module: AppModule = {
      name: 'edge',
      listener: (_req, res) => void res.end('edge answers'),
      start: () => Promise.resolve(void events.push('start')),
      stop: () => Promise.resolve(void events.push('stop')),
    };
    expect(isAppModule(module)).toBe(true);
    const served = await serveApp(module, { name: 'edge', logger: captureLogger('warn').logger });
    expect(events).toEqual(['start']);
    expect(await (await fetch(`${served.url}/anything`)).text()).toBe('edge answers');
    await served.close();
    expect(events).toEqual(['start', 'stop']);
    await expect(fetch(served.url)).rejects.toThrow();
  });
});
