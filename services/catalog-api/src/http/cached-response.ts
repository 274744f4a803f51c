import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Cache } from '@timetable/cache';
import type { Logger } from '@timetable/observability';

/** Bumped by the projection after every batch that changed something: all cached bodies expire at once. */
export const CATALOG_CACHE_NAMESPACE = 'catalog';

const NEWLINE = 0x0a;

/**
 * No entry is kept longer than this, whatever its route asks: should a version bump fail after the catalog
 * committed, the old entries go stale for at most this long (the HTTP Cache-Control is the route's own).
 */
export const MAX_ENTRY_SECONDS = 60;

export interface CachedBody {
  /** Cache key within the catalog version: the path and query the body depends on. */
  key: string;
  contentType: string;
  cacheControl: string;
  ttlSeconds: number;
  render(): Promise<string>;
}

function etagOf(body: Buffer): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

// Stored as `<etag>\n<body>`, so a hit needs neither hashing nor JSON work.
function decode(stored: Buffer | null): { etag: string; body: Buffer } | null {
  if (!stored) return null;
  const newline = stored.indexOf(NEWLINE);
  if (newline < 0) return null;
  return { etag: stored.subarray(0, newline).toString('latin1'), body: stored.subarray(newline + 1) };
}

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

/**
 * Serves the hot GET routes from the Cache port, keyed by the catalog version, with an ETag and 304 for
 * a matching If-None-Match. A failing cache only costs speed: the body is rendered instead.
 */
export class ResponseCache {
  constructor(
    private readonly cache: Cache,
    private readonly logger: Logger,
  ) {}

  async send(req: Request, res: Response, options: CachedBody): Promise<void> {
    const version = await this.cache.version(CATALOG_CACHE_NAMESPACE).catch((error: unknown) => this.failed(error, -1));
    const key = `catalog:v${version}:${options.key}`;
    let entry = version < 0 ? null : decode(await this.cache.get(key).catch((error: unknown) => this.failed(error, null)));
    if (!entry) {
      const body = Buffer.from(await options.render(), 'utf8');
      entry = { etag: etagOf(body), body };
      if (version >= 0) {
        const stored = Buffer.concat([Buffer.from(`${entry.etag}\n`, 'latin1'), body]);
        await this.cache.set(key, stored, Math.min(options.ttlSeconds, MAX_ENTRY_SECONDS)).catch((error: unknown) => this.failed(error, undefined));
      }
    }
    res.setHeader('ETag', entry.etag);
    res.setHeader('Cache-Control', options.cacheControl);
    if (matches(req.headers['if-none-match'], entry.etag)) {
      res.status(304).end();
      return;
    }
    res.setHeader('Content-Type', options.contentType);
    res.send(entry.body);
  }

  private failed<T>(error: unknown, fallback: T): T {
    this.logger.warn({ err: error }, 'response cache unavailable');
    return fallback;
  }
}
