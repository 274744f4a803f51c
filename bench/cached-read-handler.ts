/**
 * `npm run bench:cached-reads`: what the gateway's own code costs a cached read, without sockets. The handler
 * the gateway puts in front of Express runs with embedded mode's in-memory store and limiter and is called with
 * stand-in requests and responses, as Node's poll phase calls it: a batch of BATCH requests a turn, answered in
 * the check phase. The same harness around a handler that only defers and writes is the floor; what remains
 * above it is the lookup, the read limit, the header list, the request id, the metrics and the sampled log line.
 * Node's HTTP code and the network are not in it: `npm run bench` measures those against a bare server.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { Router } from 'express';
import { MemoryCache, MemoryRateLimiter, parseRateTiers, requestUrlKey, ResponseStore } from '@timetable/cache';
import { InProcessBus } from '@timetable/events';
import { createGatewayApp } from '@timetable/gateway';
import { DeveloperIdentity } from '@timetable/http';
import { createLogger } from '@timetable/observability';
import { formatProfile, profileWhile } from './support/cpu-profile.js';
import { median } from './support/median.js';
import { resultsDir } from './support/results-dir.js';

/** Requests handled per round (BENCH_REQUESTS); a round's time per request is what is reported. */
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
/** Requests read in one turn of the loop: the bench's 64 connections. */
const BATCH = 64;
const PROFILE = process.env.BENCH_PROFILE === '1';
const URL_PATH = '/v1/timetable/week/2027-W12?groupIds=0f0e2c4a-3b1d-4e6f-8a9b-0c1d2e3f4a5b';

/** The shape of the default tiers (10/1s,60/1m,1000/1h), with limits no run reaches: every request is a hit. */
const TIERS = parseRateTiers('1000000000/1s,1000000000/1m,1000000000/1h');

async function gatewayWithOneStoredWeek(): Promise<RequestListener> {
  const responses = new ResponseStore(new MemoryCache());
  await responses.set(
    await responses.version(),
    requestUrlKey(URL_PATH),
    // A one-group week as the catalog stores it; its size does not matter here, nothing copies the body.
    { etag: '"0f9d2c41a7b3e5d8"', contentType: 'application/json; charset=utf-8', cacheControl: 'public, max-age=60', route: '/v1/timetable/week/:week', lastModified: '', body: Buffer.alloc(6480, 0x20) },
    3600,
  );
  // At info, as deployed: one hit in a hundred writes a line, here into nothing.
  const logger = createLogger({ name: 'bench-cached-reads', level: 'info', destination: new Writable({ write: (_chunk, _encoding, done) => done() }) });
  return createGatewayApp({
    logger,
    upstreams: [Router()],
    readiness: [],
    keyVerifier: undefined,
    identity: new DeveloperIdentity('bench-identity-secret-of-32-chars'),
    rateLimiter: new MemoryRateLimiter(),
    rateTiers: TIERS,
    registerTiers: TIERS,
    responses,
    bus: new InProcessBus(logger),
    publicBaseUrl: 'http://127.0.0.1',
    legacyHosts: [],
    trustProxy: false,
  });
}

/** The floor: the same harness around a handler that only answers in the check phase. */
const deferOnly: RequestListener = (_req, res) => {
  setImmediate(() => res.writeHead(200, []).end());
};

const socket = { remoteAddress: '127.0.0.1', destroyed: false };
const headers = { host: '127.0.0.1:3000', connection: 'keep-alive' };

/** One request through `handler`, settled when its response ends. */
function exchange(handler: RequestListener): Promise<void> {
  return new Promise((resolve) => {
    const req = { method: 'GET', url: URL_PATH, headers, socket } as unknown as IncomingMessage;
    const res = {
      writableEnded: false,
      headersSent: false,
      writeHead(status: number) {
        if (status !== 200) throw new Error(`the handler answered ${status}, not a hit`);
        res.headersSent = true;
        return res;
      },
      end() {
        res.writableEnded = true;
        resolve();
        return res;
      },
    };
    handler(req, res as unknown as ServerResponse);
  });
}

/** Nanoseconds a request over REQUESTS requests, BATCH at a time. */
async function round(handler: RequestListener): Promise<number> {
  const started = process.hrtime.bigint();
  for (let sent = 0; sent < REQUESTS; sent += BATCH) await Promise.all(Array.from({ length: BATCH }, () => exchange(handler)));
  return Number(process.hrtime.bigint() - started) / REQUESTS;
}

async function main(): Promise<void> {
  const startedAt = new Date().toISOString();
  // The floor first, all its rounds, before the gateway's code has run at all: interleaved with the gateway's
  // rounds, its own time rose threefold (the harness' calls see other shapes and leave other garbage).
  await round(deferOnly);
  const floorNs: number[] = [];
  for (let index = 0; index < ROUNDS; index += 1) floorNs.push(await round(deferOnly));
  const gateway = await gatewayWithOneStoredWeek();
  // Warm-up: the optimising compiler sees the handler before it is timed.
  await round(gateway);
  const gatewayNs: number[] = [];
  for (let index = 0; index < ROUNDS; index += 1) gatewayNs.push(await round(gateway));
  const ownNs = median(gatewayNs) - median(floorNs);
  const lines = [
    `cached-read handler, in-memory store and limiter (3 tiers), ${REQUESTS} requests a round, ${BATCH} a turn, median of ${ROUNDS} rounds:`,
    `  gateway handler:   ${median(gatewayNs).toFixed(0)} ns a request (${gatewayNs.map((ns) => ns.toFixed(0)).join(', ')})`,
    `  harness floor:     ${median(floorNs).toFixed(0)} ns a request (${floorNs.map((ns) => ns.toFixed(0)).join(', ')})`,
    `  the gateway's own: ${ownNs.toFixed(0)} ns a request`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (PROFILE) {
    const file = path.join(resultsDir, 'cached-read-handler.cpuprofile');
    const { summary } = await profileWhile(file, () => round(gateway), 20);
    process.stdout.write(`\n${formatProfile('the cached-read handler', summary)}\n`);
  }
  await mkdir(resultsDir, { recursive: true });
  const report = { startedAt, node: process.versions.node, requests: REQUESTS, batch: BATCH, rounds: ROUNDS, gatewayNs, floorNs, ownNs };
  await writeFile(path.join(resultsDir, 'cached-read-handler.json'), `${JSON.stringify(report, null, 2)}\n`);
}

await main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
