import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { formatHttpDate, isNotModified, requestUrlKey, ResponseStore, type Cache, type StoredResponse } from '@timetable/cache';
import { routePatternOf } from '@timetable/http';
import type { Logger } from '@timetable/observability';

/**
 * No entry is kept longer than this, whatever its route asks: should a version bump fail after the catalog
 * committed, the old entries go stale for at most this long (the HTTP Cache-Control is the route's own).
 */
export const MAX_ENTRY_SECONDS = 60;

/**
 * A URL longer than this gets no entry of its own (its answer is still cached under the route's key): any
 * query parameter is accepted, so otherwise each junk parameter would add an entry.
 */
export const MAX_URL_KEY_LENGTH = 2_048;

/** A request URL (path and query, as received) and the route pattern that answers it. */
export interface UrlEntry {
  url: string;
  route: string;
}

/** A body with the instant it last changed, sent as Last-Modified; null sends none. */
export interface DatedBody {
  body: string;
  lastModified: Date | null;
}

export interface CachedBody {
  /** Cache key within the catalog version: the path and query the body depends on. */
  key: string;
  contentType: string;
  cacheControl: string;
  ttlSeconds: number;
  /**
   * The URL whose answer the body is, so the gateway may answer that URL from the cache without asking this
   * service, and the route pattern its answers are counted under: by default the request's own. An answer that
   * depends on the clock (`/week/current`) names the URL it is the answer to (that of the week it resolved to).
   */
  urlEntry?: UrlEntry;
  render(): Promise<string | DatedBody>;
}

function etagOf(body: Buffer): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

function rendered(output: string | DatedBody): Pick<StoredResponse, 'etag' | 'lastModified' | 'body'> {
  const { body: text, lastModified } = typeof output === 'string' ? { body: output, lastModified: null } : output;
  const body = Buffer.from(text, 'utf8');
  return { etag: etagOf(body), lastModified: lastModified === null ? '' : formatHttpDate(lastModified), body };
}

/**
 * Serves the hot GET routes from the shared response store, keyed by the catalog version, with an ETag (and
 * a Last-Modified where the body is dated) and 304 for a conditional GET that they validate. Each answer is also stored under its exact request URL, which is what
 * the gateway's cached-read path looks up (docs/performance.md). A failing cache only costs speed: the body
 * is rendered instead.
 */
export interface ResponseCacheDeps {
  cache: Cache;
  logger: Logger;
}

export class ResponseCache {
  private readonly store: ResponseStore;
  private readonly logger: Logger;

  constructor(deps: ResponseCacheDeps) {
    this.store = new ResponseStore(deps.cache);
    this.logger = deps.logger;
  }

  async send(req: Request, res: Response, options: CachedBody): Promise<void> {
    const version = await this.store.version().catch((error: unknown) => this.failed(error, -1));
    const route = routePatternOf(req) ?? req.path;
    let entry = version < 0 ? null : await this.store.get(version, options.key).catch((error: unknown) => this.failed(error, null));
    if (!entry) {
      entry = { ...rendered(await options.render()), contentType: options.contentType, cacheControl: options.cacheControl, route };
      if (version >= 0) await this.remember(version, options.key, entry, options.ttlSeconds);
    }
    const urlEntry = options.urlEntry ?? { url: req.originalUrl, route };
    if (version >= 0 && urlEntry.url.length <= MAX_URL_KEY_LENGTH) {
      // Labelled with the URL's route: the shared entry may have been rendered for another (/week/current).
      await this.remember(version, requestUrlKey(urlEntry.url), { ...entry, route: urlEntry.route }, options.ttlSeconds);
    }
    res.setHeader('ETag', entry.etag);
    res.setHeader('Cache-Control', entry.cacheControl);
    if (entry.lastModified !== '') res.setHeader('Last-Modified', entry.lastModified);
    if (isNotModified(req.headers, entry)) {
      res.status(304).end();
      return;
    }
    res.setHeader('Content-Type', entry.contentType);
    res.send(entry.body);
  }

  private async remember(version: number, key: string, entry: StoredResponse, ttlSeconds: number): Promise<void> {
    await this.store.set(version, key, entry, Math.min(ttlSeconds, MAX_ENTRY_SECONDS)).catch((error: unknown) => this.failed(error, undefined));
  }

  private failed<T>(error: unknown, fallback: T): T {
    this.logger.warn({ err: error }, 'response cache unavailable');
    return fallback;
  }
}
