import type { IncomingMessage, ServerResponse } from 'node:http';
import proxyaddr from 'proxy-addr';
import { etagMatches, requestUrlKey, type ResponseStore, type StoredResponse } from '@timetable/cache';
import { API_PREFIX, observeRequest, requestId } from '@timetable/http';
import { counter, type Logger } from '@timetable/observability';
import { isKeyRoute } from '../authentication/key-routes.js';
import { setRateLimitHeaders, type PublicReadLimit } from '../rate-limit/public-read-limit.js';

const lookups = counter({
  name: 'gateway_cached_reads_total',
  help: 'Anonymous GETs looked up in the shared response store, by result: hit (answered from it, labelled with the route) or miss (passed on to the API routes)',
  labelNames: ['result', 'route'],
});

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

/** Answers the request, or calls `passOn` to hand it, untouched, to the Express app. */
export type CachedReadHandler = (req: IncomingMessage, res: ServerResponse, passOn: () => void) => void;

/**
 * The gateway's path for repeated anonymous GETs, in front of Express: it does only what the contract needs
 * for a response the catalog already rendered (request id, the read limit and its headers, the lookup by
 * URL with ETag/304, metrics, sampled logging) and writes the stored bytes. Everything else (a miss, an
 * exhausted budget, a key route, a legacy host, a request with a body) passes on to the full Express path,
 * which answers exactly as it would have without this one (docs/performance.md).
 */
export function cachedReads(deps: CachedReadDeps): CachedReadHandler {
  const legacyHosts = new Set(deps.legacyHosts);
  let answered = 0;

  const eligible = (req: IncomingMessage): boolean =>
    req.method === 'GET' && req.url !== undefined && req.url.startsWith(API_PATH_START) && !hasBody(req) && !mayBeLegacyHost(req, legacyHosts);

  async function serve(req: IncomingMessage, res: ServerResponse, url: string): Promise<boolean> {
    const started = performance.now();
    const queryStart = url.indexOf('?');
    if (isKeyRoute(url.slice(API_PREFIX.length, queryStart === -1 ? undefined : queryStart))) return false;
    const entry = await lookUp(deps.responses, url);
    if (!entry) {
      lookups.inc({ result: 'miss' });
      return false;
    }
    // Charged only now: a miss is charged by the Express path, once, like any other read.
    const decision = await deps.limit.check(req, proxyaddr(req, deps.trustProxy));
    if (decision !== 'unlimited' && !decision.allowed) return false;
    const id = requestId(req, res);
    if (decision !== 'unlimited') setRateLimitHeaders(res, decision);
    const status = write(req, res, entry);
    lookups.inc({ result: 'hit', route: entry.route });
    observeRequest({ service: 'gateway', method: 'GET', route: entry.route, status: String(status) }, (performance.now() - started) / 1000);
    answered += 1;
    if (deps.logger.isLevelEnabled('debug') || answered % CACHED_READ_LOG_EVERY === 0) {
      const level = deps.logger.isLevelEnabled('debug') ? 'debug' : 'info';
      const responseTime = Math.round(performance.now() - started);
      deps.logger[level]({ req: { id, method: 'GET', url }, res: { statusCode: status }, responseTime, cachedRead: true }, 'request completed');
    }
    return true;
  }

  return (req, res, passOn) => {
    if (!eligible(req)) return passOn();
    serve(req, res, req.url ?? '').then(
      (served) => {
        if (!served) passOn();
      },
      (error: unknown) => {
        deps.logger.error({ err: error, url: req.url }, 'cached read failed');
        if (res.headersSent) res.destroy();
        else passOn();
      },
    );
  };
}

/** A store that fails costs only speed: the request takes the Express path. */
async function lookUp(responses: ResponseStore, url: string): Promise<StoredResponse | null> {
  try {
    return await responses.get(await responses.version(), requestUrlKey(url));
  } catch {
    return null;
  }
}

function write(req: IncomingMessage, res: ServerResponse, entry: StoredResponse): number {
  res.setHeader('ETag', entry.etag);
  res.setHeader('Cache-Control', entry.cacheControl);
  if (etagMatches(req.headers['if-none-match'], entry.etag)) {
    res.statusCode = 304;
    res.end();
    return 304;
  }
  res.setHeader('Content-Type', entry.contentType);
  res.setHeader('Content-Length', entry.body.length);
  res.end(entry.body);
  return 200;
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
