import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../src/index.js';
import { decodeResponse } from './support/starplan-client.js';

const sim: RunningSimulator = await startSimulator({ seed: 2, today: '2024-03-20' });
const { simulator } = sim;
afterAll(() => sim.stop());
beforeEach(() => simulator.clearMisbehaviour());

const pu = () => simulator.model.currentPuId;
const ogsUrl = () => `${sim.url}/json?m=getogs&pu=${pu()}`;
const icalUrl = () => `${sim.url}/ical?lan=de&puid=${pu()}&type=pg&pgid=${[...simulator.model.groups.keys()][0]}`;

describe('misbehaviour per request kind', () => {
  it('delays answers', async () => {
    simulator.misbehave('getogs', { delayMs: 150 });
    const started = performance.now();
    const response = await fetch(ogsUrl());
    expect(response.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('answers HTTP 500', async () => {
    simulator.misbehave('getogs', { failure: 'http500' });
    expect((await fetch(ogsUrl())).status).toBe(500);
    expect((await fetch(`${sim.url}/json?m=getpus`)).status).toBe(200);
  });

  it('cuts the body in the middle', async () => {
    const whole = Buffer.from(await (await fetch(ogsUrl())).arrayBuffer());
    simulator.misbehave('getogs', { failure: 'truncate' });
    const cut = Buffer.from(await (await fetch(ogsUrl())).arrayBuffer());
    expect(cut.length).toBe(Math.floor(whole.length / 2));
    expect(whole.subarray(0, cut.length)).toEqual(cut);
    expect(() => JSON.parse(cut.toString('latin1'))).toThrow();
  });

  it('answers garbage: bytes as long as the answer, NULs and invalid UTF-8 among them, under the usual Content-Type', async () => {
    const whole = Buffer.from(await (await fetch(ogsUrl())).arrayBuffer());
    simulator.misbehave('getogs', { failure: 'garbage' });
    const response = await fetch(ogsUrl());
    expect(response.headers.get('content-type')).toContain('ISO-8859-1');
    const garbage = Buffer.from(await response.arrayBuffer());
    expect(garbage.length).toBe(whole.length);
    expect(garbage.includes(0)).toBe(true);
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(garbage)).toThrow();
    expect(() => JSON.parse(garbage.toString('latin1'))).toThrow();
  });

  it('answers an empty list', async () => {
    simulator.misbehave('getogs', { failure: 'empty' });
    expect(JSON.parse(await decodeResponse(await fetch(ogsUrl())))).toEqual([[]]);
  });

  it('answers the 200-with-error body', async () => {
    simulator.misbehave('getogs', { failure: 'error', errorText: 'Datenbank nicht erreichbar' });
    const response = await fetch(ogsUrl());
    expect(response.status).toBe(200);
    expect(JSON.parse(await decodeResponse(response))).toEqual(['', [{ error: 'Datenbank nicht erreichbar' }]]);
  });

  it('applies to iCal: empty feed, truncated feed, 500', async () => {
    simulator.misbehave('ical', { failure: 'empty' });
    const empty = await decodeResponse(await fetch(icalUrl()));
    expect(empty).toContain('BEGIN:VCALENDAR');
    expect(empty).not.toContain('BEGIN:VEVENT');
    simulator.misbehave('ical', { failure: 'truncate' });
    expect(await decodeResponse(await fetch(icalUrl()))).not.toContain('END:VCALENDAR');
    simulator.misbehave('ical', { failure: 'http500' });
    expect((await fetch(icalUrl())).status).toBe(500);
  });

  it('`times` limits how many requests misbehave; `*` matches every kind', async () => {
    simulator.misbehave('*', { failure: 'http500', times: 2 });
    expect((await fetch(icalUrl())).status).toBe(500);
    expect((await fetch(ogsUrl())).status).toBe(500);
    expect((await fetch(ogsUrl())).status).toBe(200);
  });

  it('clears one kind or all', async () => {
    simulator.misbehave('getogs', { failure: 'http500' });
    simulator.misbehave('getpus', { failure: 'http500' });
    simulator.clearMisbehaviour('getogs');
    expect((await fetch(ogsUrl())).status).toBe(200);
    expect((await fetch(`${sim.url}/json?m=getpus`)).status).toBe(500);
    simulator.clearMisbehaviour();
    expect((await fetch(`${sim.url}/json?m=getpus`)).status).toBe(200);
  });
});

describe('misbehaviour over HTTP', () => {
  it('is set, listed and cleared under __admin/misbehave', async () => {
    const admin = `${sim.url}/__admin/misbehave`;
    const set = await fetch(admin, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'getPgsExt', failure: 'empty' }),
    });
    expect(set.status).toBe(204);
    expect(await (await fetch(admin)).json()).toEqual({ getPgsExt: { failure: 'empty' } });
    const ogId = [...simulator.model.programs.keys()][0];
    const body = await decodeResponse(await fetch(`${sim.url}/json?m=getPgsExt&pu=${pu()}&og=${ogId}`));
    expect(JSON.parse(body)).toEqual([[]]);
    expect((await fetch(`${admin}?kind=getPgsExt`, { method: 'DELETE' })).status).toBe(204);
    expect(await (await fetch(admin)).json()).toEqual({});
  });

  it('rejects an unknown failure mode with 400', async () => {
    const response = await fetch(`${sim.url}/__admin/misbehave`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'getogs', failure: 'explode' }),
    });
    expect(response.status).toBe(400);
  });
});
