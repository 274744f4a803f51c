import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AddressPolicy } from '../src/features/addresses/address-policy.js';
import { AddressGuard } from '../src/features/delivery/address-guard.js';
import { RESPONSE_BODY_LIMIT } from '../src/features/delivery/attempt-exchange.js';
import { HttpSender } from '../src/features/delivery/http-sender.js';
import { startReceiver, type TestReceiver } from './support/test-receiver.js';
import { LOOPBACK_ALLOWED } from './support/webhook-harness.js';

/** One attempt's HTTP exchange, against a real subscriber on 127.0.0.1. */
const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((each) => each.close()));
});

function sender(settings: { timeoutMs: number; connectionsPerHost?: number }): HttpSender {
  const guard = new AddressGuard({ policy: new AddressPolicy({ allowCidrs: LOOPBACK_ALLOWED, denyCidrs: [] }) });
  const created = new HttpSender({ guard, ...settings });
  opened.push(created);
  return created;
}

async function receiver(reply?: TestReceiver['reply']): Promise<TestReceiver> {
  const started = await startReceiver(reply);
  opened.push(started);
  return started;
}

const HEADERS = { 'content-type': 'application/json' };

async function waitUntil(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 5000) throw new Error('condition not met within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('an attempt', () => {
  it('reads the status and the first 1000 characters of the answer, however long it is', async () => {
    const long = 'é'.repeat(50_000);
    const subscriber = await receiver(() => ({ status: 410, body: long }));
    const result = await sender({ timeoutMs: 5000 }).post(subscriber.url, HEADERS, '{}');
    expect(result).toEqual({ ok: false, responseCode: 410, responseBody: long.slice(0, RESPONSE_BODY_LIMIT), errorMessage: null });
  });

  it('counts a 2xx with an empty body as delivered', async () => {
    const subscriber = await receiver(() => ({ status: 204 }));
    const result = await sender({ timeoutMs: 5000 }).post(subscriber.url, HEADERS, '{"a":1}');
    expect(result).toEqual({ ok: true, responseCode: 204, responseBody: '', errorMessage: null });
    expect(subscriber.received[0]?.rawBody).toBe('{"a":1}');
  });

  it('ends at its timeout while it still waits for a connection, and is never sent', async () => {
    const subscriber = await receiver((_, index) => (index === 0 ? 'hang' : { status: 200 }));
    const oneConnection = sender({ timeoutMs: 5000, connectionsPerHost: 1 });
    const releaseFirst = new AbortController();
    // The first holds the only connection far past the second's limit, until it is interrupted below.
    const first = oneConnection.post(subscriber.url, HEADERS, '{"n":1}', { shutdown: releaseFirst.signal });
    await waitUntil(() => subscriber.received.length === 1);
    const second = await oneConnection.post(subscriber.url, HEADERS, '{"n":2}', { timeoutMs: 300 });
    expect(second).toEqual({ ok: false, responseCode: null, responseBody: null, errorMessage: 'Timed out after 300 ms' });
    releaseFirst.abort();
    expect(await first).toMatchObject({ ok: false, responseCode: null, interrupted: true });
    // A third request gets the connection: the queued second was dropped, not sent late.
    expect((await oneConnection.post(subscriber.url, HEADERS, '{"n":3}')).ok).toBe(true);
    expect(subscriber.received.map((request) => request.rawBody)).toEqual(['{"n":1}', '{"n":3}']);
  });

  it('is interrupted, not failed, by a shutdown before the answer', async () => {
    const subscriber = await receiver(() => 'hang');
    const shutdown = new AbortController();
    const pending = sender({ timeoutMs: 5000 }).post(subscriber.url, HEADERS, '{}', { shutdown: shutdown.signal });
    await new Promise((resolve) => setTimeout(resolve, 100));
    shutdown.abort();
    expect(await pending).toEqual({ ok: false, responseCode: null, responseBody: null, errorMessage: 'Interrupted by shutdown', interrupted: true });
  });

  it('is interrupted before it is sent when the shutdown has already begun', async () => {
    const subscriber = await receiver();
    const shutdown = new AbortController();
    shutdown.abort();
    expect(await sender({ timeoutMs: 5000 }).post(subscriber.url, HEADERS, '{}', { shutdown: shutdown.signal })).toMatchObject({ interrupted: true });
    expect(subscriber.received).toHaveLength(0);
  });

  it('waits past an interim 1xx answer: one that never follows is a timeout, and a shutdown still interrupts it', async () => {
    const server = createServer((_req, res) => res.writeProcessing());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    opened.push({ close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    expect(await sender({ timeoutMs: 300 }).post(url, HEADERS, '{}')).toEqual({
      ok: false, responseCode: null, responseBody: null, errorMessage: 'Timed out after 300 ms',
    });
    const shutdown = new AbortController();
    const pending = sender({ timeoutMs: 5000 }).post(url, HEADERS, '{}', { shutdown: shutdown.signal });
    await new Promise((resolve) => setTimeout(resolve, 100));
    shutdown.abort();
    expect(await pending).toMatchObject({ responseCode: null, interrupted: true });
  });

  it('takes the final answer after an interim 1xx', async () => {
    const server = createServer((_req, res) => {
      res.writeEarlyHints({ link: '</hints>; rel=preload' });
      res.writeHead(202, { 'content-type': 'text/plain' }).end('accepted');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    opened.push({ close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    expect(await sender({ timeoutMs: 5000 }).post(url, HEADERS, '{}')).toEqual({ ok: true, responseCode: 202, responseBody: 'accepted', errorMessage: null });
  });

  it('names the network error when nothing listens', async () => {
    const subscriber = await receiver();
    const url = subscriber.url;
    await subscriber.close();
    const result = await sender({ timeoutMs: 5000 }).post(url, HEADERS, '{}');
    expect(result).toMatchObject({ ok: false, responseCode: null, responseBody: null });
    expect(result.errorMessage).toMatch(/ECONNREFUSED/);
  });
});
