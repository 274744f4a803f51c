import type { IncomingMessage, RequestListener } from 'node:http';
import { requestUrlKey, type ResponseStore, type StoredResponse } from '@timetable/cache';
import { API_PREFIX, observeRequest, requestIdOf } from '@timetable/http';
import { counter, type Logger } from '@timetable/observability';
import type { RouteRules } from '../authentication/key-routes.js';
import type { PublicReadLimit, ReadCheck } from '../rate-limit/public-read-limit.js';
import { clientAddress, hasBody, mayBeLegacyHost, writeStored, type Exchange, type TrustProxyFn } from './cached-read-requests.js';
import { CURRENT_WEEK_ROUTE, currentWeekUrl } from './current-week-url.js';

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
function isKeyless(entry: StoredResponse, url: string, rules: RouteRules): boolean {
  if (keylessEntries.has(entry)) return true;
  const queryStart = url.indexOf('?');
  if (rules.isKeyRoute(url.slice(API_PREFIX.length, queryStart === -1 ? undefined : queryStart))) return false;
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
  trustProxy: TrustProxyFn;
  legacyHosts: string[];
  /** The gateway's key rule, from the same route list as its key check: a keyed URL is never answered here. */
  rules: RouteRules;
  logger: Logger;
  /**
   * The label of the ISO week containing now in TIME_ZONE. With it, `/week/current` is looked up as the URL
   * of that week, resolved per request; without it, `/week/current` takes the Express path.
   */
  currentWeek?: () => string;
}

/** One request on this path, from its lookup to its answer. */
interface CachedRead extends Exchange {
  /** The URL looked up: the request's own, or for `/week/current` that of the week it names now. */
  url: string;
  /** The route pattern its answer is counted under; '' for the stored entry's own. */
  route: string;
  started: number;
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

  function handOff({ req, res }: CachedRead): void {
    passedOn.add(req);
    passOn(req, res);
  }

  const eligible = (req: IncomingMessage): boolean =>
    req.method === 'GET' && req.url !== undefined && req.url.startsWith(API_PATH_START) && !hasBody(req) && !mayBeLegacyHost(req, legacyHosts);

  /** `/week/current` is looked up as the URL of the week it names now, and counted under its own route. */
  function resolveCurrentWeek(read: CachedRead): void {
    const weekUrl = deps.currentWeek ? currentWeekUrl(read.url, deps.currentWeek) : undefined;
    if (weekUrl === undefined) return;
    read.url = weekUrl;
    read.route = CURRENT_WEEK_ROUTE;
  }

  function lookUpAndCharge(read: CachedRead): void {
    const entry = lookUp(deps.responses, read.url);
    if (entry instanceof Promise) entry.then((found) => charge(read, found)).catch((error: unknown) => failed(read, error));
    else charge(read, entry);
  }

  function charge(read: CachedRead, entry: StoredResponse | null): void {
    if (!entry || !isKeyless(entry, read.url, deps.rules)) {
      misses += 1;
      return handOff(read);
    }
    // Charged only now: a miss is charged by the Express path, once, like any other read.
    const decision = deps.limit.consume(clientAddress(read.req, deps.trustProxy));
    if (decision instanceof Promise) decision.then((outcome) => schedule(read, entry, outcome)).catch((error: unknown) => failed(read, error));
    else schedule(read, entry, decision);
  }

  function schedule(read: CachedRead, entry: StoredResponse, decision: ReadCheck): void {
    // From here on the request is charged: whatever passes it on, the Express path must not charge it again.
    if (decision !== 'unlimited' && !decision.allowed) {
      deps.limit.handOver(read.req, decision);
      return handOff(read);
    }
    // Written in the loop's check phase, once the poll phase has read every request that arrived with this
    // one: under load a turn then reads a batch and writes a batch, instead of answering each request while
    // its neighbours wait to be read. The same work costs a quarter less CPU a request that way
    // (docs/performance.md, "Answering after the turn's reads").
    setImmediate(answerAfterThisTurnsReads, read, entry, decision);
  }

  function answerAfterThisTurnsReads(read: CachedRead, entry: StoredResponse, decision: ReadCheck): void {
    // The client left while the turn read its neighbours: nothing to write, and like a request Express never
    // finished it is not counted as answered (the limiter has charged it, as it would have on that path).
    if (read.req.socket?.destroyed) return;
    try {
      answer(read, entry, decision);
    } catch (error) {
      deps.limit.handOver(read.req, decision);
      failed(read, error);
    }
  }

  function answer(read: CachedRead, entry: StoredResponse, decision: ReadCheck): void {
    const id = requestIdOf(read.req);
    const status = writeStored(read, entry, id, decision);
    const route = read.route || entry.route;
    hitsByRoute.set(route, (hitsByRoute.get(route) ?? 0) + 1);
    observeRequest({ service: 'gateway', method: 'GET', route, status: String(status) }, (performance.now() - read.started) / 1000);
    answered += 1;
    if (deps.logger.isLevelEnabled('debug') || answered % CACHED_READ_LOG_EVERY === 0) {
      const level = deps.logger.isLevelEnabled('debug') ? 'debug' : 'info';
      const responseTime = Math.round(performance.now() - read.started);
      deps.logger[level]({ req: { id, method: 'GET', url: read.req.url }, res: { statusCode: status }, responseTime, cachedRead: true }, 'request completed');
    }
  }

  function failed(read: CachedRead, error: unknown): void {
    const { req, res } = read;
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
    else handOff(read);
  }

  return (req, res) => {
    if (!eligible(req)) return passOn(req, res);
    const read: CachedRead = { req, res, url: req.url ?? '', route: '', started: performance.now() };
    try {
      resolveCurrentWeek(read);
      lookUpAndCharge(read);
    } catch (error) {
      failed(read, error);
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
