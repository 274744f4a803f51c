import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import proxyaddr from 'proxy-addr';
import { isNotModified, requestUrlKey, type ResponseStore, type StoredResponse } from '@timetable/cache';
import { API_PREFIX, observeRequest, requestIdOf } from '@timetable/http';
import { counter, type Logger } from '@timetable/observability';
import { isKeyRoute } from '../authentication/key-routes.js';
import { rateLimitHeaderList, type PublicReadLimit, type ReadCheck } from '../rate-limit/public-read-limit.js';

// Tallied in plain numbers and handed to the counter when /metrics is read: a labelled increment per request
// costs as much as a good part of answering it.
const hitsByRoute = new Map<string, number>();
let misses = 0;
counter({
  name: 'gateway_cached_reads_total',
  help: 'Anonymous GETs looked up in the shared response store, by result: hit (answered from it, labelled with the route) or miss (passed on to the API routes)',
  labelNames: ['result', 'route'],
  collect() {
    this.reset();
    if (misses > 0) this.inc({ result: 'miss' }, misses);
    for (const [route, hits] of hitsByRoute) this.inc({ result: 'hit', route }, hits);
  },
});

/**
 * Entries whose URL was found to need no API key. An entry belongs to one URL, and the in-memory store hands
 * out the same entry on every hit, so the key rule runs once per entry there rather than once per request.
 */
const keylessEntries = new WeakSet<StoredResponse>();
function isKeyless(entry: StoredResponse, url: string): boolean {
  if (keylessEntries.has(entry)) return true;
  const queryStart = url.indexOf('?');
  if (isKeyRoute(url.slice(API_PREFIX.length, queryStart === -1 ? undefined : queryStart))) return false;
  keylessEntries.add(entry);
  return true;
}

/** One request in this many answered here is logged at info; at debug level every one is. */
export const CACHED_READ_LOG_EVERY = 100;

const API_PATH_START = `${API_PREFIX}/`;

export interface CachedReadDeps {
  responses: ResponseStore;
  limit: PublicReadLimit;
  /** Express' compiled 'trust proxy' function: the client address is the one `req.ip` would give. */
  trustProxy: (address: string, hop: number) => boolean;
  legacyHosts: string[];
  logger: Logger;
}

/**
 * The gateway's path for repeated anonymous GETs, in front of Express: it does only what the contract needs
 * for a response the catalog already rendered (request id, the read limit and its headers, the lookup by
 * URL with ETag, Last-Modified and 304, metrics, sampled logging) and writes the stored bytes. Everything else (a miss, an
 * exhausted budget, a key route, a legacy host, a request with a body) passes on to `passOn`, the full Express
 * path, which answers exactly as it would have without this one (docs/performance.md).
 *
 * In embedded mode the store and the limiter live in this process and answer without a promise, so a hit runs
 * straight through to its deferred write, and nothing on that way allocates a closure; with Redis the same
 * steps continue once it has answered.
 */
export function cachedReads(deps: CachedReadDeps, passOn: RequestListener): RequestListener {
  const legacyHosts = new Set(deps.legacyHosts);
  let answered = 0;
  /** Requests handed to Express: a failure after that (Express throwing) must not hand them over again. */
  const passedOn = new WeakSet<IncomingMessage>();

  function handOff(req: IncomingMessage, res: ServerResponse): void {
    passedOn.add(req);
    passOn(req, res);
  }

  const eligible = (req: IncomingMessage): boolean =>
    req.method === 'GET' && req.url !== undefined && req.url.startsWith(API_PATH_START) && !hasBody(req) && !mayBeLegacyHost(req, legacyHosts);

  function lookUpAndCharge(req: IncomingMessage, res: ServerResponse, url: string): void {
    const started = performance.now();
    const entry = lookUp(deps.responses, url);
    if (entry instanceof Promise) entry.then((found) => charge(req, res, url, started, found)).catch((error: unknown) => failed(req, res, error));
    else charge(req, res, url, started, entry);
  }

  function charge(req: IncomingMessage, res: ServerResponse, url: string, started: number, entry: StoredResponse | null): void {
    if (!entry || !isKeyless(entry, url)) {
      misses += 1;
      return handOff(req, res);
    }
    // Charged only now: a miss is charged by the Express path, once, like any other read.
    const decision = deps.limit.consume(clientAddress(req, deps.trustProxy));
    if (decision instanceof Promise) decision.then((outcome) => schedule(req, res, url, started, entry, outcome)).catch((error: unknown) => failed(req, res, error));
    else schedule(req, res, url, started, entry, decision);
  }

  function schedule(req: IncomingMessage, res: ServerResponse, url: string, started: number, entry: StoredResponse, decision: ReadCheck): void {
    // From here on the request is charged: whatever passes it on, the Express path must not charge it again.
    if (decision !== 'unlimited' && !decision.allowed) {
      deps.limit.handOver(req, decision);
      return handOff(req, res);
    }
    // Written in the loop's check phase, once the poll phase has read every request that arrived with this
    // one: under load a turn then reads a batch and writes a batch, instead of answering each request while
    // its neighbours wait to be read. The same work costs a quarter less CPU a request that way
    // (docs/performance.md, "Answering after the turn's reads").
    setImmediate(answerAfterThisTurnsReads, req, res, url, started, entry, decision);
  }

  function answerAfterThisTurnsReads(req: IncomingMessage, res: ServerResponse, url: string, started: number, entry: StoredResponse, decision: ReadCheck): void {
    // The client left while the turn read its neighbours: nothing to write, and like a request Express never
    // finished it is not counted as answered (the limiter has charged it, as it would have on that path).
    if (req.socket?.destroyed) return;
    try {
      answer(req, res, url, started, entry, decision);
    } catch (error) {
      deps.limit.handOver(req, decision);
      failed(req, res, error);
    }
  }

  function answer(req: IncomingMessage, res: ServerResponse, url: string, started: number, entry: StoredResponse, decision: ReadCheck): void {
    const id = requestIdOf(req);
    const status = write(req, res, entry, id, decision);
    hitsByRoute.set(entry.route, (hitsByRoute.get(entry.route) ?? 0) + 1);
    observeRequest({ service: 'gateway', method: 'GET', route: entry.route, status: String(status) }, (performance.now() - started) / 1000);
    answered += 1;
    if (deps.logger.isLevelEnabled('debug') || answered % CACHED_READ_LOG_EVERY === 0) {
      const level = deps.logger.isLevelEnabled('debug') ? 'debug' : 'info';
      const responseTime = Math.round(performance.now() - started);
      deps.logger[level]({ req: { id, method: 'GET', url }, res: { statusCode: status }, responseTime, cachedRead: true }, 'request completed');
    }
  }

  function failed(req: IncomingMessage, res: ServerResponse, error: unknown): void {
    deps.logger.error({ err: error, url: req.url }, 'cached read failed');
    // Express has it and threw out of its own error handling: a second hand-off could answer twice, and no
    // answer at all would leave the client waiting, so the connection is closed unless an answer went out.
    if (passedOn.has(req)) {
      if (!res.writableEnded) res.destroy();
      return;
    }
    // Answered already (the failure came after the bytes went out, in metrics or logging): nothing to do.
    if (res.writableEnded) return;
    if (res.headersSent) res.destroy();
    else handOff(req, res);
  }

  return (req, res) => {
    if (!eligible(req)) return passOn(req, res);
    try {
      lookUpAndCharge(req, res, req.url ?? '');
    } catch (error) {
      failed(req, res, error);
    }
  };
}

/** A store that fails costs only speed: the request takes the Express path. */
function lookUp(responses: ResponseStore, url: string): StoredResponse | null | Promise<StoredResponse | null> {
  try {
    const found = responses.current(requestUrlKey(url));
    return found instanceof Promise ? found.catch(() => null) : found;
  } catch {
    return null;
  }
}

// All headers in one writeHead, as a flat list of names and values: setting them one by one costs more than
// the rest of a hit's own work, and a list spares Node the walk over an object's keys.
function write(req: IncomingMessage, res: ServerResponse, entry: StoredResponse, requestId: string, decision: ReadCheck): number {
  const headers = decision === 'unlimited' ? ['X-Request-Id', requestId] : ['X-Request-Id', requestId, ...rateLimitHeaderList(decision)];
  headers.push('ETag', entry.etag, 'Cache-Control', entry.cacheControl);
  if (entry.lastModified !== '') headers.push('Last-Modified', entry.lastModified);
  if (isNotModified(req.headers, entry)) {
    res.writeHead(304, headers).end();
    return 304;
  }
  headers.push('Content-Type', entry.contentType, 'Content-Length', String(entry.body.length));
  res.writeHead(200, headers).end(entry.body);
  return 200;
}

/** `req.ip` as Express computes it: without X-Forwarded-For that is the socket's address, whatever is trusted. */
function clientAddress(req: IncomingMessage, trustProxy: CachedReadDeps['trustProxy']): string | undefined {
  return req.headers['x-forwarded-for'] === undefined ? req.socket.remoteAddress : proxyaddr(req, trustProxy);
}

// A GET body is parsed (and can be refused) by the Express path; such requests are left to it.
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

// The legacy-host redirect compares host names; a forwarded host is left to it as well.
function mayBeLegacyHost(req: IncomingMessage, legacyHosts: Set<string>): boolean {
  if (legacyHosts.size === 0) return false;
  if (req.headers['x-forwarded-host'] !== undefined) return true;
  const host = req.headers.host?.toLowerCase() ?? '';
  return legacyHosts.has(host) || legacyHosts.has(host.replace(/:\d+$/, ''));
}
