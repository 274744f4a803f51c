import { Router } from 'express';
import { describe, expect, it } from 'vitest';
import type { ServiceModule } from '@timetable/http';
import { captureLogger } from '@timetable/testing';
import { ShutdownStack } from '../src/index.js';

function recordingModule(name: string, events: string[], failStart = false): ServiceModule {
  return {
    name,
    routes: Router(),
    readiness: [],
    start: () => {
      events.push(`start ${name}`);
      return failStart ? Promise.reject(new Error(`${name} cannot start`)) : Promise.resolve();
    },
    stop: () => {
      events.push(`stop ${name}`);
      return Promise.resolve();
    },
  };
}

describe('ShutdownStack', () => {
  it('starts modules in order and releases everything in the reverse order, once', async () => {
    const events: string[] = [];
    const stack = new ShutdownStack(captureLogger('warn').logger);
    stack.push('store', async () => void events.push('close store'));
    await stack.startModules(['catalog', 'changes', 'sync'].map((name) => recordingModule(name, events)));
    stack.push('server', async () => void events.push('close server'));
    await Promise.all([stack.close(), stack.close()]);
    await stack.close();
    expect(events).toEqual([
      'start catalog', 'start changes', 'start sync',
      'close server', 'stop sync', 'stop changes', 'stop catalog', 'close store',
    ]);
  });

  it('stops every module of a list whose start failed half-way, the unstarted ones included', async () => {
    const events: string[] = [];
    const stack = new ShutdownStack(captureLogger('warn').logger);
    const modules = [recordingModule('catalog', events), recordingModule('changes', events, true), recordingModule('sync', events)];
    await expect(stack.startModules(modules)).rejects.toThrow('changes cannot start');
    await stack.close();
    expect(events).toEqual(['start catalog', 'start changes', 'stop sync', 'stop changes', 'stop catalog']);
  });

  it('goes on past a release that fails, logs it, and rejects once everything ran', async () => {
    const { logger, lines } = captureLogger('warn');
    const events: string[] = [];
    const stack = new ShutdownStack(logger);
    stack.push('store', async () => void events.push('close store'));
    stack.push('module', () => Promise.reject(new Error('stuck')));
    await expect(stack.close()).rejects.toThrow('shutdown incomplete: module did not stop cleanly');
    expect(events).toEqual(['close store']);
    expect(lines()).toEqual([expect.objectContaining({ level: 'error', what: 'module', msg: 'module did not stop cleanly' })]);
  });
});
