import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../src/index.js';

/**
 * StarPlan's resources are answered by a plain Node handler in front of the express app that serves the admin
 * routes. It answers as the express router it replaced did: paths without case and with a trailing slash,
 * HEAD like GET without the body, any other method or path left to the express app. An answer that cannot be
 * built is a 500 (StarPlan's servlet error page) and is reported, rather than a crash.
 */
let sim: RunningSimulator;
let origin: string;
const reported: unknown[] = [];

beforeAll(async () => {
  sim = await startSimulator({ seed: 5, today: '2024-03-20', onError: (error) => reported.push(error) });
  origin = new URL(sim.url).origin;
});
afterAll(() => sim.stop());

/** The status line and headers of a GET sent as written, for a target fetch would not send. */
function rawGet(target: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(origin).port), '127.0.0.1', () => socket.write(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
    let received = '';
    socket.setEncoding('latin1').on('data', (chunk: string) => (received += chunk));
    socket.on('end', () => resolve(received)).on('error', reject);
  });
}

const feedPath = () => {
  const { model } = sim.simulator;
  return `/splan/ical?lan=de&puid=${model.currentPuId}&type=pg&pgid=${[...model.groups.keys()][0]}`;
};

describe('the StarPlan resources', () => {
  it('are found without regard to case, with a trailing slash, and without the fragment', async () => {
    const exact = await fetch(`${origin}/splan/json?m=getlocs`);
    const loose = await fetch(`${origin}/SPlan/JSON/?m=getlocs`);
    expect(loose.status).toBe(200);
    expect(loose.headers.get('content-type')).toBe(exact.headers.get('content-type'));
    expect(Buffer.from(await loose.arrayBuffer())).toEqual(Buffer.from(await exact.arrayBuffer()));
    // fetch never sends a fragment; a raw request line may.
    const withFragment = await rawGet('/splan/json?m=getlocs#top');
    expect(withFragment).toMatch(/^HTTP\/1\.1 200 /);
    expect(withFragment).toContain('[[{"id":');
  });

  it('answer HEAD with the headers of GET and no body', async () => {
    const get = await fetch(`${origin}${feedPath()}`);
    const head = await fetch(`${origin}${feedPath()}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/calendar; charset=UTF-8');
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
    expect(await head.text()).toBe('');
  });

  it('send the length of each body, and neither an ETag nor an X-Powered-By', async () => {
    const response = await fetch(`${origin}/splan/json?m=getpus`);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(response.headers.get('content-length')).toBe(String(bytes.length));
    expect(response.headers.get('etag')).toBeNull();
    expect(response.headers.get('x-powered-by')).toBeNull();
  });
});

describe('other requests', () => {
  it('go on to the express app: another method, another path, the admin routes', async () => {
    expect((await fetch(`${origin}/splan/json?m=getpus`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${origin}/splan/jsonx?m=getpus`)).status).toBe(404);
    expect((await fetch(`${origin}/other/json?m=getpus`)).status).toBe(404);
    const groups = await fetch(`${origin}/splan/__admin/groups`);
    expect(groups.status).toBe(200);
    expect(((await groups.json()) as unknown[]).length).toBe(sim.simulator.model.groups.size);
  });
});

describe('an answer that cannot be built', () => {
  it('is a 500, reported, and the simulator goes on answering', async () => {
    const { model } = sim.simulator;
    const occurrencesOfGroup = model.occurrencesOfGroup.bind(model);
    model.occurrencesOfGroup = () => {
      throw new Error('broken model');
    };
    sim.simulator.modelChanged();
    try {
      const broken = await fetch(`${origin}${feedPath()}`);
      expect(broken.status).toBe(500);
      expect(broken.headers.get('content-type')).toBe('text/html; charset=ISO-8859-1');
      expect(reported).toEqual([new Error('broken model')]);
    } finally {
      model.occurrencesOfGroup = occurrencesOfGroup;
      sim.simulator.modelChanged();
    }
    const healed = await fetch(`${origin}${feedPath()}`);
    expect(healed.status).toBe(200);
    expect(await healed.text()).toContain('BEGIN:VEVENT');
  });
});
