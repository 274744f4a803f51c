import type { IncomingMessage, ServerResponse } from 'node:http';
import proxyaddr from 'proxy-addr';
import { isNotModified, type StoredResponse } from '@timetable/cache';
import { rateLimitHeaderList, type ReadCheck } from '../rate-limit/public-read-limit.js';

/** A request and its response. */
export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
}

/** Express' compiled 'trust proxy' function. */
export type TrustProxyFn = (address: string, hop: number) => boolean;

/**
 * Writes a stored response, or 304 where the request validates it, and answers the status written. All
 * headers go in one writeHead, as a flat list of names and values: setting them one by one costs more than
 * the rest of a hit's own work, and a list spares Node the walk over an object's keys.
 */
export function writeStored({ req, res }: Exchange, entry: StoredResponse, requestId: string, decision: ReadCheck): number {
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
export function clientAddress(req: IncomingMessage, trustProxy: TrustProxyFn): string | undefined {
  return req.headers['x-forwarded-for'] === undefined ? req.socket.remoteAddress : proxyaddr(req, trustProxy);
}

/** A GET body is parsed (and can be refused) by the Express path; such requests are left to it. */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/** The legacy-host redirect compares host names; a forwarded host is left to it as well. */
export function mayBeLegacyHost(req: IncomingMessage, legacyHosts: Set<string>): boolean {
  if (legacyHosts.size === 0) return false;
  if (req.headers['x-forwarded-host'] !== undefined) return true;
  const host = req.headers.host?.toLowerCase() ?? '';
  return legacyHosts.has(host) || legacyHosts.has(host.replace(/:\d+$/, ''));
}
