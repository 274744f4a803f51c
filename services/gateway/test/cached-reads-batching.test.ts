import type { IncomingMessage, ServerResponse } from 'node:http';
import { setImmediate as nextCheckPhase } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { MemoryCache, MemoryRateLimiter, ResponseStore, parseRateTiers, requestUrlKey } from '@timetable/cache';
import { allApiRoutes } from '@timetable/contracts';
import { createLogger, metricsRegistry } from '@timetable/observability';
import { routeRules } from '../src/features/authentication/key-routes.js';
import { cachedReads } from '../src/features/cached-reads/cached-reads.js';
import { PublicReadLimit } from '../src/features/rate-limit/public-read-limit.js';

/**
 * The cached-read path writes its answers in the event loop's check phase, after the poll phase has read
 * every request that arrived together: a turn reads a batch, then writes a batch (docs/performance.md,
 * "Answering after the turn's reads"). Requests that arrive in one turn are simulated by calling the handler
 * for each of them synchronously, as the poll phase does.
 */

const logger = createLogger({ name: 'cached-reads-batching', level: 'silent' });

async function handlerWithStoredPrograms(passOn?: (req: IncomingMessage) => void) {
  const responses = new ResponseStore(new MemoryCache());
  const stored = { etag: '"e1"', contentType: 'text/plain', cacheControl: 'no-cache', route: '/v1/timetable/programs', lastModified: '', body: Buffer.from('stored') };
  await responses.set(await responses.version(), requestUrlKey('/v1/timetable/programs'), stored, 60);
  const limit = new PublicReadLimit({ rateLimiter: new MemoryRateLimiter(), rateTiers: parseRateTiers('100/1m'), logger });
  /** The requests handed to the Express path. */
  const passedOn: IncomingMessage[] = [];
  const handle = cachedReads({ responses, limit, trustProxy: () => false, legacyHosts: [], rules: routeRules(allApiRoutes), logger }, (req) => {
    passedOn.push(req);
    passOn?.(req);
  });
  return Object.assign(handle, { limit, passedOn });
}

/** What the process's registry counts for the stored programs route: answered requests and cache hits. */
async function countedForPrograms() {
  const sumOf = async (name: string, matches: (labels: Record<string, unknown>) => boolean) => {
    const metric = (await metricsRegistry.getSingleMetric(name)!.get()) as { values: { value: number; labels: Record<string, unknown> }[] };
    return metric.values.filter((value) => matches(value.labels)).reduce((sum, value) => sum + value.value, 0);
  };
  return {
    requests: await sumOf('http_requests_total', (labels) => labels.service === 'gateway' && labels.route === '/v1/timetable/programs'),
    hits: await sumOf('gateway_cached_reads_total', (labels) => labels.result === 'hit' && labels.route === '/v1/timetable/programs'),
  };
}

function fakeExchange(url = '/v1/timetable/programs') {
  const req = { method: 'GET', url, headers: {}, socket: { remoteAddress: '127.0.0.1', destroyed: false } } as unknown as IncomingMessage;
  const written: { status?: number; body?: Buffer } = {};
  const fake = {
    writableEnded: false,
    headersSent: false,
    writeHead(status: number) {
      written.status = status;
      fake.headersSent = true;
      return fake;
    },
    end(body?: Buffer) {
      written.body = body;
      fake.writableEnded = true;
      return fake;
    },
    destroyed: false,
    destroy() {
      fake.destroyed = true;
      return fake;
    },
  };
  const res = fake as unknown as ServerResponse;
  return { req, res, written, fake };
}

/**
 * Runs every pending microtask and process.nextTick callback (and their follow-ups) without letting the loop
 * reach its check phase: a deferral by either would already have written here, only the check phase has not.
 */
async function drainMicrotasks(): Promise<void> {
  for (let round = 0; round < 50; round += 1) {
    await Promise.resolve();
    await new Promise<void>((resolve) => process.nextTick(resolve));
  }
}

describe('the cached-read path', () => {
  it('answers the requests one turn read together only after reading them all, in the check phase', async () => {
    const handle = await handlerWithStoredPrograms();
    const exchanges = [fakeExchange(), fakeExchange(), fakeExchange()];
    for (const exchange of exchanges) handle(exchange.req, exchange.res);

    await drainMicrotasks();
    expect(exchanges.map((exchange) => exchange.written.status)).toEqual([undefined, undefined, undefined]);

    await nextCheckPhase();
    await drainMicrotasks();
    expect(exchanges.map((exchange) => [exchange.written.status, exchange.written.body?.toString()])).toEqual([
      [200, 'stored'],
      [200, 'stored'],
      [200, 'stored'],
    ]);
    expect(handle.passedOn).toEqual([]);
  });

  it('writes nothing to a client that left before its turn came, and does not pass it on either', async () => {
    const handle = await handlerWithStoredPrograms();
    const before = await countedForPrograms();
    const staying = fakeExchange();
    const leaving = fakeExchange();
    handle(staying.req, staying.res);
    handle(leaving.req, leaving.res);
    await drainMicrotasks();
    // Both are looked up, charged and waiting for the check phase when one client hangs up.
    (leaving.req.socket as { destroyed: boolean }).destroyed = true;

    await nextCheckPhase();
    await drainMicrotasks();
    expect(staying.written.status).toBe(200);
    expect(leaving.written).toEqual({});
    expect(handle.passedOn).toEqual([]);
    // Counted once, for the one answered; both were charged (the next request from that address is the third).
    const after = await countedForPrograms();
    expect({ requests: after.requests - before.requests, hits: after.hits - before.hits }).toEqual({ requests: 1, hits: 1 });
    expect(await handle.limit.consume('127.0.0.1')).toMatchObject({ allowed: true, limit: 100, remaining: 97 });
  });

  it('charges an in-memory hit before the request event returns: nothing on its way waits for a promise', async () => {
    const handle = await handlerWithStoredPrograms();
    const exchange = fakeExchange();
    handle(exchange.req, exchange.res);
    // No await between: the limiter was charged synchronously, and charges again synchronously here.
    expect(handle.limit.consume('127.0.0.1')).toMatchObject({ allowed: true, limit: 100, remaining: 98 });
    await nextCheckPhase();
    expect(exchange.written.status).toBe(200);
  });

  it('hands a request to Express once, even when Express throws on it', async () => {
    const handle = await handlerWithStoredPrograms(() => {
      throw new Error('express failed');
    });
    const miss = fakeExchange('/v1/timetable/rooms');
    expect(() => handle(miss.req, miss.res)).not.toThrow();
    await nextCheckPhase();
    expect(handle.passedOn).toEqual([miss.req]);
    // Not left waiting: nothing was answered, so the connection is closed.
    expect(miss.fake.destroyed).toBe(true);
  });
});
