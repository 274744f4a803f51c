import type { Request, RequestHandler, Response } from 'express';
import { API_PREFIX, errorBody, GoneError } from '@timetable/http';

export interface LegacyRedirectSettings {
  /** Absolute external base URL without a trailing slash, e.g. `https://api.example.edu`. */
  publicBaseUrl: string;
  /** Host names (lower case) of the retired service: every request there is redirected. */
  legacyHosts: string[];
}

type LegacyTarget = { kind: 'gone' } | { kind: 'moved'; path: string };

const LEGACY_PREFIX = /^\/api\/v1(?=\/|$)/i;

/**
 * The retired `/api/v1` service: its routes move one-to-one under `/v1/timetable` (301, absolute, query
 * kept) on any host, its export routes are gone (410), its health route became the platform /health.
 * On a legacy host everything else is redirected to the same path on the public host.
 */
export function legacyRedirects(settings: LegacyRedirectSettings): RequestHandler {
  const legacyHosts = new Set(settings.legacyHosts);
  return (req, res, next) => {
    const queryStart = req.url.indexOf('?');
    const path = queryStart === -1 ? req.url : req.url.slice(0, queryStart);
    const query = queryStart === -1 ? '' : req.url.slice(queryStart);
    const target = legacyTarget(path);
    if (target?.kind === 'gone') {
      res.status(410).json(errorBody(new GoneError('The export endpoints of API v1 were retired without replacement')));
      return;
    }
    if (target) return movedPermanently(res, `${settings.publicBaseUrl}${target.path}${query}`);
    if (isLegacyHost(req, legacyHosts)) return movedPermanently(res, `${settings.publicBaseUrl}${path}${query}`);
    next();
  };
}

export function legacyTarget(path: string): LegacyTarget | null {
  const prefix = LEGACY_PREFIX.exec(path);
  if (!prefix) return null;
  const rest = path.slice(prefix[0].length);
  if (/^\/export(?:\/|$)/i.test(rest)) return { kind: 'gone' };
  if (/^\/health\/?$/i.test(rest)) return { kind: 'moved', path: '/health' };
  return { kind: 'moved', path: `${API_PREFIX}${rest}` };
}

function isLegacyHost(req: Request, legacyHosts: Set<string>): boolean {
  if (legacyHosts.size === 0) return false;
  const host = req.headers.host?.toLowerCase();
  return (host !== undefined && legacyHosts.has(host)) || legacyHosts.has(req.hostname.toLowerCase());
}

/** Like every non-2xx answer, the redirect carries the error envelope (clients follow Location). */
function movedPermanently(res: Response, location: string): void {
  res.setHeader('Location', location);
  res.status(301).json({ error: { code: 'MOVED_PERMANENTLY', message: `Moved permanently to ${location}`, details: { location } } });
}
