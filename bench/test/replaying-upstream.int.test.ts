import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayingUpstream } from '../support/replaying-upstream.js';

async function listen(handler: RequestListener): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

// The origin answers each address with its path and a version the test moves on, and counts what it is asked.
let version = 1;
let asked = 0;
let origin: { server: Server; url: string };
let proxy: { server: Server; url: string };

beforeAll(async () => {
  origin = await listen((req, res) => {
    asked += 1;
    res.writeHead(200, { 'Content-Type': 'text/calendar; charset=UTF-8' }).end(`${req.url} v${version}`);
  });
  proxy = await listen(replayingUpstream(origin.url));
});

afterAll(async () => {
  for (const { server } of [proxy, origin]) await new Promise<void>((resolve) => server.close(() => resolve()));
});

const get = async (path: string) => {
  const response = await fetch(`${proxy.url}${path}`);
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
};
const mode = async (name: string) => expect((await fetch(`${proxy.url}/__replay/${name}`, { method: 'POST' })).status).toBe(204);

describe('the bench\'s replaying upstream', () => {
  it('forwards while recording, answers from memory while replaying, and forwards again when recording', async () => {
    expect(await get('/splan/ical?pgid=1')).toEqual({ status: 200, type: 'text/calendar; charset=UTF-8', text: '/splan/ical?pgid=1 v1' });
    await mode('replay');
    version = 2;
    const askedBefore = asked;
    expect((await get('/splan/ical?pgid=1')).text).toBe('/splan/ical?pgid=1 v1');
    // An address it never recorded is forwarded, then kept.
    expect((await get('/splan/ical?pgid=2')).text).toBe('/splan/ical?pgid=2 v2');
    expect(asked).toBe(askedBefore + 1);
    await mode('record');
    expect((await get('/splan/ical?pgid=1')).text).toBe('/splan/ical?pgid=1 v2');
    expect(asked).toBe(askedBefore + 2);
    // What it counted: three GETs forwarded (recording, an unknown one while replaying, recording again) and
    // one answered from memory.
    expect(await (await fetch(`${proxy.url}/__replay/counts`)).json()).toEqual({ replayed: 1, forwarded: 3 });
  });
});
